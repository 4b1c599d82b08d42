package io.paduraksa.policy.attack;

import dk.brics.automaton.Automaton;
import dk.brics.automaton.BasicAutomata;
import dk.brics.automaton.RunAutomaton;
import java.util.List;

/**
 * A deterministic automaton over bytes that answers "does some pattern occur in the input": the
 * patterns are prefixed with {@code .*}, determinised and minimised by dk.brics.automaton at
 * compile time, then re-tabled over 258 input symbols (256 byte values, {@link #BEGIN} and
 * {@link #END}) folded into equivalence classes. Walking it is one class load and one table load
 * per byte and never backtracks: time is linear in the input whatever the patterns are.
 */
final class Dfa {
    /** Symbol fed before the first byte of a value, so patterns can anchor at its start. */
    static final int BEGIN = 256;
    /** Symbol fed after the last byte. */
    static final int END = 257;
    /** The characters patterns use for {@link #BEGIN} and {@link #END} (no byte maps to them). */
    static final char BEGIN_CHAR = '\u0100';
    static final char END_CHAR = '\u0101';
    private static final int SYMBOLS = 258;

    /** Symbol (0..257) -> equivalence class. */
    private final int[] classes;
    private final int classCount;
    /** {@code state * classCount + class} -> next state. */
    private final int[] next;
    private final boolean[] accept;
    private final int initial;

    private Dfa(int[] classes, int classCount, int[] next, boolean[] accept, int initial) {
        this.classes = classes;
        this.classCount = classCount;
        this.next = next;
        this.accept = accept;
        this.initial = initial;
    }

    /** The union of {@code patterns} (dk.brics automata over chars), searched anywhere in the input. Compile time. */
    static Dfa search(List<Automaton> patterns) {
        Automaton union = patterns.isEmpty() ? BasicAutomata.makeEmpty() : Automaton.union(patterns);
        Automaton a = BasicAutomata.makeAnyString().concatenate(union);
        a.minimize();
        return of(new RunAutomaton(a, false));
    }

    private static Dfa of(RunAutomaton run) {
        int states = run.getSize();
        int[] raw = new int[states * SYMBOLS];
        for (int s = 0; s < states; s++) {
            for (int c = 0; c < SYMBOLS; c++) {
                raw[s * SYMBOLS + c] = run.step(s, symbolChar(c));
            }
        }
        // Two symbols are equivalent when every state sends them to the same place.
        int[] classes = new int[SYMBOLS];
        int[] representative = new int[SYMBOLS];
        int classCount = 0;
        for (int c = 0; c < SYMBOLS; c++) {
            int found = -1;
            for (int k = 0; k < classCount && found < 0; k++) {
                if (sameColumn(raw, states, representative[k], c)) {
                    found = k;
                }
            }
            if (found < 0) {
                found = classCount;
                representative[classCount++] = c;
            }
            classes[c] = found;
        }
        // The dead state (-1) becomes an extra sink state that is never accepting.
        int sink = states;
        int[] next = new int[(states + 1) * classCount];
        for (int s = 0; s <= states; s++) {
            for (int k = 0; k < classCount; k++) {
                int to = s == sink ? -1 : raw[s * SYMBOLS + representative[k]];
                next[s * classCount + k] = to < 0 ? sink : to;
            }
        }
        boolean[] accept = new boolean[states + 1];
        for (int s = 0; s < states; s++) {
            accept[s] = run.isAccept(s);
        }
        return new Dfa(classes, classCount, next, accept, run.getInitialState());
    }

    private static boolean sameColumn(int[] raw, int states, int a, int b) {
        for (int s = 0; s < states; s++) {
            if (raw[s * SYMBOLS + a] != raw[s * SYMBOLS + b]) {
                return false;
            }
        }
        return true;
    }

    private static char symbolChar(int c) {
        return c == BEGIN ? BEGIN_CHAR : c == END ? END_CHAR : (char) c;
    }

    /**
     * Walks {@code BEGIN, in[from..to), END} and returns the index after the byte at which a
     * pattern first completed ({@code to + 1} when it completed on END), or -1. 0 B.
     */
    int find(byte[] in, int from, int to) {
        int[] cls = classes;
        int[] table = next;
        boolean[] acc = accept;
        int k = classCount;
        int s = table[initial * k + cls[BEGIN]];
        if (acc[s]) {
            return from;
        }
        for (int i = from; i < to; i++) {
            s = table[s * k + cls[in[i] & 0xFF]];
            if (acc[s]) {
                return i + 1;
            }
        }
        s = table[s * k + cls[END]];
        return acc[s] ? to + 1 : -1;
    }

    int states() {
        return accept.length;
    }

    @Override
    public String toString() {
        return "Dfa[" + accept.length + " states, " + classCount + " classes]";
    }
}
