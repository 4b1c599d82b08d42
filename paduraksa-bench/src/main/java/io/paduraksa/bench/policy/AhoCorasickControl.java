package io.paduraksa.bench.policy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Benchmark-only copy of the dense Aho-Corasick DFA that {@code UserAgentPolicy} used up to commit
 * e2cfbfd (one dependent table load per byte). {@link UserAgentBenchmark} runs it next to the current
 * matcher in the same JVM so that the comparison does not depend on this shared machine's mood;
 * nothing outside the benchmarks uses it.
 */
final class AhoCorasickControl {

    private AhoCorasickControl() {
    }

    /**
     * A dense Aho-Corasick automaton that only answers "does any needle occur". A transition into
     * a state that completes a needle (directly or through its failure chain) is stored as -1, so
     * the scan stops at the first hit with a single sign test. Other transitions hold the target
     * state's row offset ({@code state * width}), so the scan does no multiplication.
     */
    public static final class Automaton {
        private static final int MATCH = -1;

        /** Input class of each byte value after case folding; 0 for bytes in no needle. */
        private final int[] classOf;
        private final int[] next;
        private final int width;
        private final int needles;

        private Automaton(int[] classOf, int[] next, int width, int needles) {
            this.classOf = classOf;
            this.next = next;
            this.width = width;
            this.needles = needles;
        }

        public boolean occursIn(CharSequence s) {
            int[] table = next;
            int[] classes = classOf;
            int state = 0;
            for (int i = 0, n = s.length(); i < n; i++) {
                char c = s.charAt(i);
                state = table[state + (c < 256 ? classes[c] : 0)];
                if (state < 0) {
                    return true;
                }
            }
            return false;
        }

        int states() {
            return next.length / width;
        }

        public static Automaton compile(String policy, List<String> needles) {
            if (needles == null) {
                throw new IllegalArgumentException("user_agent policy '" + policy + "': deny list is null");
            }
            byte[][] folded = foldedNeedles(policy, needles);
            int[] classOf = new int[256];
            int width = assignClasses(folded, classOf);
            Trie trie = new Trie(width);
            for (byte[] needle : folded) {
                trie.add(needle, classOf);
            }
            int[] next = trie.toDfa();
            for (int b = 'A'; b <= 'Z'; b++) {
                classOf[b] = classOf[b | 0x20];
            }
            return new Automaton(classOf, next, width, folded.length);
        }

        private static byte[][] foldedNeedles(String policy, List<String> needles) {
            byte[][] folded = new byte[needles.size()][];
            for (int i = 0; i < folded.length; i++) {
                String needle = needles.get(i);
                if (needle == null || needle.isEmpty()) {
                    throw new IllegalArgumentException("user_agent policy '" + policy + "': deny[" + i + "] is empty"
                            + " (expected a non-empty substring such as 'sqlmap')");
                }
                byte[] bytes = needle.getBytes(StandardCharsets.UTF_8);
                for (int k = 0; k < bytes.length; k++) {
                    bytes[k] = bytes[k] >= 'A' && bytes[k] <= 'Z' ? (byte) (bytes[k] | 0x20) : bytes[k];
                }
                folded[i] = bytes;
            }
            return folded;
        }

        /** Numbers the distinct (folded) needle bytes 1..k into {@code classOf}; returns k + 1. */
        private static int assignClasses(byte[][] needles, int[] classOf) {
            int width = 1;
            for (byte[] needle : needles) {
                for (byte b : needle) {
                    if (classOf[b & 0xFF] == 0) {
                        classOf[b & 0xFF] = width++;
                    }
                }
            }
            return width;
        }
    }

    /** The goto function, built needle by needle, then closed into a DFA (compile time only). */
    private static final class Trie {
        private final int width;
        private final List<int[]> gotos = new ArrayList<>();
        private final List<Boolean> terminal = new ArrayList<>();

        Trie(int width) {
            this.width = width;
            newState();
        }

        void add(byte[] needle, int[] classOf) {
            int state = 0;
            for (byte b : needle) {
                int c = classOf[b & 0xFF];
                int target = gotos.get(state)[c];
                if (target < 0) {
                    target = newState();
                    gotos.get(state)[c] = target;
                }
                state = target;
            }
            terminal.set(state, true);
        }

        /** Breadth-first failure links; every missing goto becomes its failure state's transition. */
        int[] toDfa() {
            int states = gotos.size();
            int[] fail = new int[states];
            boolean[] accepting = new boolean[states];
            int[] dfa = new int[Math.multiplyExact(states, width)];
            int[] queue = new int[states];
            int head = 0;
            int tail = 0;
            for (int c = 0; c < width; c++) {
                int target = gotos.get(0)[c];
                dfa[c] = Math.max(target, 0);
                if (target > 0) {
                    queue[tail++] = target;
                }
            }
            while (head < tail) {
                int state = queue[head++];
                accepting[state] = terminal.get(state) || accepting[fail[state]];
                for (int c = 0; c < width; c++) {
                    int target = gotos.get(state)[c];
                    if (target < 0) {
                        dfa[state * width + c] = dfa[fail[state] * width + c];
                    } else {
                        fail[target] = dfa[fail[state] * width + c];
                        dfa[state * width + c] = target;
                        queue[tail++] = target;
                    }
                }
            }
            for (int i = 0; i < dfa.length; i++) {
                dfa[i] = accepting[dfa[i]] ? Automaton.MATCH : dfa[i] * width;
            }
            return dfa;
        }

        private int newState() {
            int[] row = new int[width];
            Arrays.fill(row, -1);
            gotos.add(row);
            terminal.add(false);
            return gotos.size() - 1;
        }
    }
}
