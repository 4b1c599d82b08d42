package io.paduraksa.policy.attack;

import java.util.regex.Pattern;

/**
 * One detection rule: a CRS-like id (its first three digits are the group: 930 path traversal,
 * 932 command injection, 933 PHP, 941 XSS, 942 SQL injection, 944 Java, 913 scanners, 920/921
 * protocol), the lowest paranoia level that runs it, the anomaly score it adds, the parts it
 * looks at and its pattern. Patterns are regular expressions in dk.brics.automaton's syntax
 * over the transformed (lower-case) bytes, compiled by {@link PatternCompiler};
 * {@link Dfa#BEGIN_CHAR} and {@link Dfa#END_CHAR} anchor them to a value's start and end. Built
 * once per class load.
 */
public final class AttackRule {
    public static final int CRITICAL = 5;
    public static final int ERROR = 4;
    public static final int WARNING = 3;
    public static final int NOTICE = 2;
    /** Compile time only (deciding {@code alone}); never run on request bytes. */
    private static final Pattern GAP = Pattern.compile("\\.[*+]|\\[\\^[^\\]]*\\][*+]|\\]\\{[0-9]");

    private final int id;
    private final int index;
    private final int paranoia;
    private final int score;
    private final int parts;
    private final String pattern;
    private final String message;
    /**
     * A gap ({@code .*}, {@code .+}, a negated class repeated), a counted run ({@code [...]{12}}) or a trigger (a
     * long word list): the rule joins the union by its trigger only (each gap, or thousands of states, would
     * multiply the states of all the others), and its own automaton is walked over a value whose group matched.
     */
    private final boolean alone;
    private final boolean cmdLine;
    /** For a gap rule: a gap-free pattern that every match of the rule contains (its part before the first gap). */
    private final String trigger;
    private Dfa dfa;
    private Dfa prefilterDfa;

    AttackRule(int id, int index, int paranoia, int score, int parts, String pattern, String message, boolean cmdLine,
            String trigger) {
        this.cmdLine = cmdLine;
        this.trigger = trigger;
        this.id = id;
        this.index = index;
        this.paranoia = paranoia;
        this.score = score;
        this.parts = parts;
        this.pattern = pattern;
        this.message = message;
        // A trigger keeps a large rule (a long word list) out of the union too, gap or not.
        this.alone = trigger != null || GAP.matcher(pattern).find();
        if (alone && (trigger == null || GAP.matcher(trigger).find())) {
            throw new IllegalStateException(id + ": a rule with a gap needs a gap-free trigger for the union (" + pattern + ")");
        }
    }

    /**
     * True when the rule reads the value after {@link Transform#cmdLine} (as CRS's command-injection
     * rules do) instead of the common chain; such rules have their own unions.
     */
    boolean isCmdLine() {
        return cmdLine;
    }

    public int id() {
        return id;
    }

    /** Position in the table: the rule's bit in a request's match set ({@link Inspection#matched}). */
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

    /** The pattern, in {@link PatternCompiler}'s syntax (dk.brics.automaton's). */
    String pattern() {
        return pattern;
    }

    /**
     * What this rule adds to its part's union pre-filter: the pattern itself, or for a gap rule its
     * trigger, so that a value the union does not match skips the gap rules too.
     */
    String prefilter() {
        return alone ? trigger : pattern;
    }

    /** This rule alone, searched anywhere; built on first use (compile time, milliseconds). */
    synchronized Dfa dfa() {
        if (dfa == null) {
            dfa = PatternCompiler.search(pattern);
        }
        return dfa;
    }

    /** {@link #prefilter} searched anywhere: this rule's part of a union; built on first use (compile time). */
    synchronized Dfa prefilterDfa() {
        if (!alone) {
            return dfa();
        }
        if (prefilterDfa == null) {
            prefilterDfa = PatternCompiler.search(trigger);
        }
        return prefilterDfa;
    }

    @Override
    public String toString() {
        return id + " (PL" + paranoia + ", score " + score + ") " + message;
    }
}
