package io.paduraksa.policy.attack;

import dk.brics.automaton.Automaton;
import dk.brics.automaton.RegExp;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One detection rule: a CRS-like id (its first three digits are the group: 930 path traversal,
 * 932 command injection, 933 PHP, 941 XSS, 942 SQL injection, 944 Java, 913 scanners, 920/921
 * protocol), the lowest paranoia level that runs it, the anomaly score it adds, the parts it
 * looks at and its pattern. Patterns are dk.brics regular expressions over the transformed
 * (lower-case) bytes; {@link Dfa#BEGIN_CHAR} and {@link Dfa#END_CHAR} anchor them to a value's
 * start and end. Built once per class load.
 */
public final class AttackRule {
    public static final int CRITICAL = 5;
    public static final int ERROR = 4;
    public static final int WARNING = 3;
    public static final int NOTICE = 2;
    /** Compile time only (deciding {@link #isAlone}); never run on request bytes. */
    private static final Pattern GAP = Pattern.compile("\\.\\*|\\[\\^[^\\]]*\\][*+]|\\]\\{[0-9]");

    private final int id;
    private final int index;
    private final int paranoia;
    private final int score;
    private final int parts;
    private final String pattern;
    private final String message;
    /** Unbounded gaps or counted runs: compiled alone, since in a union they multiply its states. */
    private final boolean alone;
    private Dfa dfa;

    AttackRule(int id, int index, int paranoia, int score, int parts, String pattern, String message) {
        this.id = id;
        this.index = index;
        this.paranoia = paranoia;
        this.score = score;
        this.parts = parts;
        this.pattern = pattern;
        this.message = message;
        this.alone = GAP.matcher(pattern).find();
    }

    /**
     * True when the pattern has a gap ({@code .*}, a negated class repeated) or a counted run
     * ({@code [...]{12}}): such a rule gets its own automaton, walked over every value, instead of
     * joining the union (where each gap would double the states of all the others).
     */
    boolean isAlone() {
        return alone;
    }

    public int id() {
        return id;
    }

    /** Position in the table, 0 to 63: the rule's bit in a request's match set. */
    int index() {
        return index;
    }

    /** The rule group, the first three digits of the id (942 for 942100). */
    public int group() {
        return id / 1000;
    }

    public int paranoia() {
        return paranoia;
    }

    public int score() {
        return score;
    }

    /** The {@link Part} bits this rule looks at. */
    public int parts() {
        return parts;
    }

    public String message() {
        return message;
    }

    /** The pattern as a dk.brics automaton (compile time). */
    Automaton automaton() {
        return new RegExp(pattern, RegExp.NONE).toAutomaton();
    }

    /** This rule alone, searched anywhere; built on first use (compile time, under the table's lock). */
    synchronized Dfa dfa() {
        if (dfa == null) {
            dfa = Dfa.search(List.of(automaton()));
        }
        return dfa;
    }

    @Override
    public String toString() {
        return id + " (PL" + paranoia + ", score " + score + ") " + message;
    }
}
