package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dk.brics.automaton.Automaton;
import dk.brics.automaton.BasicAutomata;
import dk.brics.automaton.RegExp;
import dk.brics.automaton.RunAutomaton;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Our pattern compiler and union against dk.brics.automaton, the reference the rules were written
 * for: for every rule (its pattern and its trigger) both automata accept exactly the same inputs,
 * checked over every reachable pair of states (not by sampling), and a union stops exactly where the
 * first of its patterns would.
 */
class PatternCompilerTest {
    private static final int SYMBOLS = PatternCompiler.SYMBOLS;

    @Test
    void everyRuleAcceptsWhatDkBricsAccepts() {
        for (AttackRule rule : AttackRules.all()) {
            assertEquivalent(rule.id() + " pattern", PatternCompiler.search(rule.pattern()), brics(List.of(rule.pattern())), false);
            assertEquivalent(rule.id() + " prefilter", PatternCompiler.search(rule.prefilter()), brics(List.of(rule.prefilter())),
                    false);
        }
    }

    /**
     * Unions of 4 rules (every third such group across the table, gap triggers included: dk.brics needs
     * seconds for larger ones) stop exactly where the first of their patterns completes.
     */
    @Test
    void unionsStopWhereTheFirstPatternMatches() {
        List<AttackRule> all = AttackRules.all();
        for (int from = 0; from < all.size(); from += 12) {
            List<AttackRule> group = all.subList(from, Math.min(all.size(), from + 4));
            Dfa[] parts = new Dfa[group.size()];
            List<String> patterns = new ArrayList<>();
            for (int i = 0; i < parts.length; i++) {
                parts[i] = group.get(i).prefilterDfa();
                patterns.add(group.get(i).prefilter());
            }
            assertEquivalent("rules " + group, Dfa.union(parts), brics(patterns), true);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', textBlock = """
            a{2,3}b          ; xaab; 4
            a{2,3}b          ; xab; -1
            a{2,}b           ; aaaaab; 6
            [^a-c]x          ; ax; -1
            [^a-c]x          ; dx; 2
            [a-]x            ; -x; 2
            "a|b"            ; a|b; 3
            x()y             ; xy; 2
            \\.\\*           ; a.*; 3
            """)
    void syntaxAsDkBricsReadsIt(String pattern, String input, int end) {
        byte[] b = input.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(PatternCompiler.search(pattern).find(b, 0, b.length)).as(pattern).isEqualTo(end);
    }

    @ParameterizedTest
    @ValueSource(strings = {"(ab", "ab)", "[ab", "a{", "a{x}", "a{3,2}", "[z-a]", "\"ab", "a|", "a\\"})
    void malformedPatternsAreRejected(String pattern) {
        assertThatThrownBy(() -> PatternCompiler.search(pattern)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pattern " + pattern);
    }

    /** dk.brics's automaton for the patterns searched anywhere, as a table over our 258 symbols. */
    private static RunAutomaton brics(List<String> patterns) {
        List<Automaton> automata = new ArrayList<>();
        for (String p : patterns) {
            automata.add(new RegExp(p, RegExp.NONE).toAutomaton());
        }
        Automaton a = BasicAutomata.makeAnyString().concatenate(Automaton.union(automata));
        a.minimize();
        return new RunAutomaton(a, false);
    }

    /**
     * Walks both automata in step over every reachable pair of states and asserts they agree on
     * acceptance; with {@code stopAtAccept}, pairs past a common accept are not explored (find stops there).
     */
    private static void assertEquivalent(String what, Dfa ours, RunAutomaton theirs, boolean stopAtAccept) {
        ArrayDeque<long[]> todo = new ArrayDeque<>();
        Set<Long> seen = new HashSet<>();
        todo.add(new long[] {ours.initial(), theirs.getInitialState()});
        seen.add(pair(ours.initial(), theirs.getInitialState()));
        while (!todo.isEmpty()) {
            long[] p = todo.poll();
            int o = (int) p[0];
            int t = (int) p[1];
            boolean theirAccept = t >= 0 && theirs.isAccept(t);
            assertThat(ours.accepts(o)).as("%s: acceptance differs in a reachable state", what).isEqualTo(theirAccept);
            if (stopAtAccept && theirAccept) {
                continue;
            }
            for (int c = 0; c < SYMBOLS; c++) {
                int on = ours.next(o, c);
                int tn = t < 0 ? -1 : theirs.step(t, c == Dfa.BEGIN ? Dfa.BEGIN_CHAR : c == Dfa.END ? Dfa.END_CHAR : (char) c);
                if (seen.add(pair(on, tn))) {
                    todo.add(new long[] {on, tn});
                }
            }
        }
    }

    private static long pair(int a, int b) {
        return (long) a << 32 | (b & 0xFFFFFFFFL);
    }
}
