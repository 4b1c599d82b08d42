package io.paduraksa.policy.attack;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A deterministic automaton over bytes that answers "does some pattern occur in the input": a
 * pattern is compiled with {@code .*} in front by {@link PatternCompiler}, patterns are joined by
 * {@link #union}, both minimised, over 258 input symbols (256 byte values, {@link #BEGIN} and
 * {@link #END}) folded into equivalence classes. Walking it is one class load and one table load
 * per byte and never backtracks: time is linear in the input whatever the patterns are. The table
 * holds each target as its row's offset, an accepting target complemented, so the walk's chain per
 * byte is one add and one load (no multiply, no second table for acceptance).
 */
final class Dfa {
    /** Symbol fed before the first byte of a value, so patterns can anchor at its start. */
    static final int BEGIN = 256;
    /** Symbol fed after the last byte. */
    static final int END = 257;
    /** The characters patterns use for {@link #BEGIN} and {@link #END} (no byte maps to them). */
    static final char BEGIN_CHAR = '\u0100';
    static final char END_CHAR = '\u0101';
    private static final int SYMBOLS = PatternCompiler.SYMBOLS;

    /** Symbol (0..257) -> equivalence class. */
    private final int[] classes;
    private final int classCount;
    /**
     * {@code state * classCount + class} -> the next state's row offset ({@code next * classCount}),
     * complemented ({@code ~offset}, negative) when the next state accepts.
     */
    private final int[] rows;
    private final boolean[] accept;
    private final int initial;
    /** {@link #rows}' entry for the initial state on {@link #BEGIN}: where every walk starts. */
    private final int start;

    /** {@code next}: {@code state * classCount + class} -> next state (the table is re-encoded, not kept). */
    Dfa(int[] classes, int classCount, int[] next, boolean[] accept, int initial) {
        if ((long) accept.length * classCount > Integer.MAX_VALUE) {
            throw new IllegalStateException("an automaton of " + accept.length + " states and " + classCount + " classes");
        }
        this.classes = classes;
        this.classCount = classCount;
        this.accept = accept;
        this.initial = initial;
        rows = new int[next.length];
        for (int i = 0; i < next.length; i++) {
            int offset = next[i] * classCount;
            rows[i] = accept[next[i]] ? ~offset : offset;
        }
        start = rows[initial * classCount + classes[BEGIN]];
    }

    /**
     * One automaton that reaches an accepting state exactly where the first of {@code parts} would (each
     * a {@link #search} automaton): their product, built over int tables instead of by dk.brics's subset
     * construction over the union (minutes for our rule table, against well under a second here). A
     * product state lists only the parts away from their initial state, since a search automaton falls
     * back to it on every byte that continues no pattern; every accepting state is merged into one sink,
     * since {@link #find} stops there. Compile time.
     */
    static Dfa union(Dfa[] parts) {
        int[] classes = new int[SYMBOLS];
        int[] representative = new int[SYMBOLS];
        int classCount = jointClasses(parts, classes, representative);
        // Per part and joint class, the part's own class.
        int[][] partClass = new int[parts.length][classCount];
        for (int i = 0; i < parts.length; i++) {
            for (int k = 0; k < classCount; k++) {
                partClass[i][k] = parts[i].classes[representative[k]];
            }
        }
        int[][] starters = starters(parts, partClass, classCount);
        Product product = new Product(parts, partClass, starters, classCount);
        return product.build(classes);
    }

    /** Symbols that every part puts in the same class share a joint class; returns the count. */
    private static int jointClasses(Dfa[] parts, int[] classes, int[] representative) {
        Object[] signatures = new Object[SYMBOLS];
        for (int c = 0; c < SYMBOLS; c++) {
            List<Integer> signature = new ArrayList<>(parts.length);
            for (Dfa part : parts) {
                signature.add(part.classes[c]);
            }
            signatures[c] = signature;
        }
        return numberClasses(signatures, classes, representative);
    }

    /**
     * Symbols with equal signatures share a class: fills {@code classes} (symbol -> class, numbered in
     * order of first symbol) and {@code representative} (class -> its first symbol); returns the count.
     */
    static int numberClasses(Object[] signatures, int[] classes, int[] representative) {
        Map<Object, Integer> ids = new HashMap<>();
        for (int c = 0; c < SYMBOLS; c++) {
            Integer id = ids.get(signatures[c]);
            if (id == null) {
                id = ids.size();
                ids.put(signatures[c], id);
                representative[id] = c;
            }
            classes[c] = id;
        }
        return ids.size();
    }

    /** Per joint class, the parts that leave their initial state on it, as {@code part << PART_SHIFT | next}. */
    private static int[][] starters(Dfa[] parts, int[][] partClass, int classCount) {
        int[][] out = new int[classCount][];
        for (int k = 0; k < classCount; k++) {
            int[] moved = new int[parts.length];
            int n = 0;
            for (int i = 0; i < parts.length; i++) {
                int to = parts[i].step(parts[i].initial, partClass[i][k]);
                if (to != parts[i].initial) {
                    moved[n++] = i << PART_SHIFT | to;
                }
            }
            out[k] = Arrays.copyOf(moved, n);
        }
        return out;
    }

    private int step(int state, int cls) {
        int offset = rows[state * classCount + cls];
        return (offset < 0 ? ~offset : offset) / classCount;
    }

    /** A product state's parts are packed as {@code part << PART_SHIFT | state}. */
    private static final int PART_SHIFT = 20;

    /**
     * The reachable product of search automata (see {@link #union}); compile time. Product states are
     * interned in an open-addressing table over one pool of packed parts, so that the millions of
     * transitions of a large union look their target up without allocating.
     */
    private static final class Product {
        private static final int ACCEPT = 0;
        private static final int MASK = (1 << PART_SHIFT) - 1;
        private final Dfa[] parts;
        private final int[][] partClass;
        private final int[][] starters;
        private final int classCount;
        private final int[] scratch;
        /** Packed parts of every product state, state s at {@code pool[offset[s], offset[s + 1])}. */
        private int[] pool = new int[1 << 16];
        private int[] offset = new int[1 << 12];
        private int states;
        /** Open addressing: state id + 1, 0 for empty. */
        private int[] slots = new int[1 << 14];
        private int[] table = new int[1 << 16];

        Product(Dfa[] parts, int[][] partClass, int[][] starters, int classCount) {
            this.parts = parts;
            this.partClass = partClass;
            this.starters = starters;
            this.classCount = classCount;
            this.scratch = new int[parts.length];
            for (Dfa p : parts) {
                if (p.accept[p.initial]) {
                    throw new IllegalStateException("a search automaton that accepts the empty input: " + p);
                }
                if (p.accept.length >= 1 << PART_SHIFT || parts.length >= 1 << (31 - PART_SHIFT)) {
                    throw new IllegalStateException("a union of " + parts.length + " automata, one of " + p.accept.length
                            + " states: too large to pack");
                }
            }
        }

        Dfa build(int[] classes) {
            states = 1;
            offset[1] = 0;
            int initial = intern(0);
            for (int s = 0; s < states; s++) {
                if (table.length < (s + 1) * classCount) {
                    table = Arrays.copyOf(table, Math.max((s + 1) * classCount, table.length * 2));
                }
                for (int k = 0; k < classCount; k++) {
                    table[s * classCount + k] = s == ACCEPT ? ACCEPT : next(s, k);
                }
            }
            boolean[] accepting = new boolean[states];
            accepting[ACCEPT] = true;
            return minimal(classes, classCount, Arrays.copyOf(table, states * classCount), accepting, initial);
        }

        /** The product state after state {@code s} reads joint class {@code k}: a merge of its parts and the class's starters. */
        private int next(int s, int k) {
            int[] start = starters[k];
            int n = 0;
            int a = offset[s];
            int aEnd = offset[s + 1];
            int b = 0;
            while (a < aEnd || b < start.length) {
                int pa = a < aEnd ? pool[a] >>> PART_SHIFT : Integer.MAX_VALUE;
                int pb = b < start.length ? start[b] >>> PART_SHIFT : Integer.MAX_VALUE;
                int part;
                int to;
                if (pa <= pb) {
                    part = pa;
                    to = parts[part].step(pool[a++] & MASK, partClass[part][k]);
                    b += pa == pb ? 1 : 0;
                } else {
                    part = pb;
                    to = start[b++] & MASK;
                }
                if (parts[part].accept[to]) {
                    return ACCEPT;
                }
                if (to != parts[part].initial) {
                    scratch[n++] = part << PART_SHIFT | to;
                }
            }
            return intern(n);
        }

        /** The id of the product state {@code scratch[0, n)}, added when new. */
        private int intern(int n) {
            int h = 1;
            for (int i = 0; i < n; i++) {
                h = h * 31 + scratch[i];
            }
            h ^= h >>> 16;
            int mask = slots.length - 1;
            for (int i = h & mask; ; i = (i + 1) & mask) {
                int id = slots[i] - 1;
                if (id < 0) {
                    return add(i, n);
                }
                if (offset[id + 1] - offset[id] == n && Arrays.equals(pool, offset[id], offset[id + 1], scratch, 0, n)) {
                    return id;
                }
            }
        }

        private int add(int slot, int n) {
            int id = states++;
            slots[slot] = id + 1;
            if (offset.length < states + 1) {
                offset = Arrays.copyOf(offset, offset.length * 2);
            }
            int from = offset[id];
            if (pool.length < from + n) {
                pool = Arrays.copyOf(pool, Math.max(from + n, pool.length * 2));
            }
            System.arraycopy(scratch, 0, pool, from, n);
            offset[id + 1] = from + n;
            if (states * 2 > slots.length) {
                rehash();
            }
            return id;
        }

        private void rehash() {
            slots = new int[slots.length * 2];
            int mask = slots.length - 1;
            for (int id = 1; id < states; id++) {
                int h = 1;
                for (int i = offset[id]; i < offset[id + 1]; i++) {
                    h = h * 31 + pool[i];
                }
                h ^= h >>> 16;
                int i = h & mask;
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = id + 1;
            }
        }
    }

    /**
     * The minimal automaton equivalent to the complete one in {@code table}, its symbol classes
     * merged where they became equivalent: Hopcroft's partition refinement as Valmari and Lehtinen write it ("Efficient
     * minimization of DFAs with partial transition functions", 2008), over int arrays. Halves the
     * product's states here. Compile time.
     */
    static Dfa minimal(int[] classes, int classCount, int[] table, boolean[] accepting, int initial) {
        int states = table.length / classCount;
        int transitions = table.length;
        Partition blocks = new Partition(states);
        for (int st = 0; st < states; st++) {
            if (accepting[st]) {
                blocks.mark(st);
            }
        }
        blocks.split();
        // Cords: transitions (state * classCount + class) grouped by class at first.
        Partition cords = new Partition(transitions);
        for (int k = 0, i = 0; k < classCount; k++) {
            for (int st = 0; st < states; st++) {
                int t = st * classCount + k;
                cords.elements[i] = t;
                cords.location[t] = i++;
            }
        }
        cords.count = 0;
        for (int k = 0; k < classCount; k++) {
            cords.first[k] = k * states;
            cords.past[k] = (k + 1) * states;
            for (int i = cords.first[k]; i < cords.past[k]; i++) {
                cords.set[cords.elements[i]] = k;
            }
        }
        cords.count = classCount;
        // Incoming transitions per state, as a CSR list.
        int[] inStart = new int[states + 1];
        for (int to : table) {
            inStart[to + 1]++;
        }
        for (int st = 0; st < states; st++) {
            inStart[st + 1] += inStart[st];
        }
        int[] incoming = new int[transitions];
        int[] fill = Arrays.copyOf(inStart, states);
        for (int t = 0; t < transitions; t++) {
            incoming[fill[table[t]]++] = t;
        }
        int b = 1;
        for (int c = 0; c < cords.count; c++) {
            for (int i = cords.first[c]; i < cords.past[c]; i++) {
                blocks.mark(cords.elements[i] / classCount);
            }
            blocks.split();
            for (; b < blocks.count; b++) {
                for (int i = blocks.first[b]; i < blocks.past[b]; i++) {
                    int st = blocks.elements[i];
                    for (int j = inStart[st]; j < inStart[st + 1]; j++) {
                        cords.mark(incoming[j]);
                    }
                }
                cords.split();
            }
        }
        int n = blocks.count;
        int[] next = new int[n * classCount];
        for (int block = 0; block < n; block++) {
            int from = blocks.elements[blocks.first[block]];
            for (int k = 0; k < classCount; k++) {
                next[block * classCount + k] = blocks.set[table[from * classCount + k]];
            }
        }
        boolean[] accept = new boolean[n];
        for (int st = 0; st < states; st++) {
            accept[blocks.set[st]] |= accepting[st];
        }
        return compact(classes, classCount, next, accept, blocks.set[initial]);
    }

    /** The same automaton with classes that every state treats alike merged into one. */
    private static Dfa compact(int[] classes, int classCount, int[] next, boolean[] accept, int initial) {
        int states = accept.length;
        int[] merged = new int[classCount];
        int[] kept = new int[classCount];
        int count = 0;
        for (int k = 0; k < classCount; k++) {
            int found = -1;
            for (int m = 0; m < count && found < 0; m++) {
                if (sameColumn(next, states, classCount, kept[m], k)) {
                    found = m;
                }
            }
            if (found < 0) {
                found = count;
                kept[count++] = k;
            }
            merged[k] = found;
        }
        int[] table = new int[states * count];
        for (int st = 0; st < states; st++) {
            for (int m = 0; m < count; m++) {
                table[st * count + m] = next[st * classCount + kept[m]];
            }
        }
        int[] symbols = new int[SYMBOLS];
        for (int c = 0; c < SYMBOLS; c++) {
            symbols[c] = merged[classes[c]];
        }
        return new Dfa(symbols, count, table, accept, initial);
    }

    private static boolean sameColumn(int[] next, int states, int classCount, int a, int b) {
        for (int st = 0; st < states; st++) {
            if (next[st * classCount + a] != next[st * classCount + b]) {
                return false;
            }
        }
        return true;
    }

    /** A refinable partition of 0..n-1 (Valmari's: marked elements are moved to the front of their set). */
    private static final class Partition {
        final int[] elements;
        final int[] location;
        final int[] set;
        final int[] first;
        final int[] past;
        private final int[] marked;
        private final int[] touched;
        private int touchedCount;
        int count;

        Partition(int n) {
            elements = new int[n];
            location = new int[n];
            set = new int[n];
            first = new int[n + 1];
            past = new int[n + 1];
            marked = new int[n + 1];
            touched = new int[n + 1];
            for (int i = 0; i < n; i++) {
                elements[i] = i;
                location[i] = i;
            }
            past[0] = n;
            count = n > 0 ? 1 : 0;
        }

        void mark(int e) {
            int s = set[e];
            int i = location[e];
            int j = first[s] + marked[s];
            if (i < j) {
                return;
            }
            elements[i] = elements[j];
            location[elements[i]] = i;
            elements[j] = e;
            location[e] = j;
            if (marked[s]++ == 0) {
                touched[touchedCount++] = s;
            }
        }

        /** Splits every touched set into its marked and unmarked elements; the smaller half becomes a new set. */
        void split() {
            while (touchedCount > 0) {
                int s = touched[--touchedCount];
                int j = first[s] + marked[s];
                if (j == past[s]) {
                    marked[s] = 0;
                    continue;
                }
                int z = count++;
                if (marked[s] <= past[s] - j) {
                    first[z] = first[s];
                    past[z] = j;
                    first[s] = j;
                } else {
                    past[z] = past[s];
                    first[z] = j;
                    past[s] = j;
                }
                for (int i = first[z]; i < past[z]; i++) {
                    set[elements[i]] = z;
                }
                marked[s] = 0;
                marked[z] = 0;
            }
        }
    }

    /**
     * Walks {@code BEGIN, in[from..to), END} and returns the index after the byte at which a
     * pattern first completed ({@code to + 1} when it completed on END), or -1. 0 B.
     */
    int find(byte[] in, int from, int to) {
        int[] cls = classes;
        int[] table = rows;
        int s = start;
        if (s < 0) {
            return from;
        }
        for (int i = from; i < to; i++) {
            s = table[s + cls[in[i] & 0xFF]];
            if (s < 0) {
                return i + 1;
            }
        }
        return table[s + cls[END]] < 0 ? to + 1 : -1;
    }

    /**
     * Whether {@code a} finds a pattern in {@code x[0, xn)} (bit 1) and {@code b} one in {@code y[0, yn)}
     * (bit 2): the two walks interleaved, two independent chains per step, so the pair costs little
     * more than one walk where a value is walked twice (its command-line and its plain form). 0 B.
     */
    static int findEach(Dfa a, byte[] x, int xn, Dfa b, byte[] y, int yn) {
        int[] ca = a.classes;
        int[] ta = a.rows;
        int[] cb = b.classes;
        int[] tb = b.rows;
        int sa = a.start;
        int sb = b.start;
        int n = Math.min(xn, yn);
        int i = 0;
        while (i < n && (sa | sb) >= 0) {
            sa = ta[sa + ca[x[i] & 0xFF]];
            sb = tb[sb + cb[y[i] & 0xFF]];
            i++;
        }
        boolean foundA = sa < 0 || a.resume(sa, x, i, xn);
        boolean foundB = sb < 0 || b.resume(sb, y, i, yn);
        return (foundA ? 1 : 0) | (foundB ? 2 : 0);
    }

    /** The walk from row offset {@code s} (not accepting) over {@code in[from, to)} and END: whether it accepts. */
    private boolean resume(int s, byte[] in, int from, int to) {
        int[] cls = classes;
        int[] table = rows;
        for (int i = from; i < to; i++) {
            s = table[s + cls[in[i] & 0xFF]];
            if (s < 0) {
                return true;
            }
        }
        return table[s + cls[END]] < 0;
    }

    /** The state before {@link #BEGIN} (compile time, tests). */
    int initial() {
        return initial;
    }

    /** The state after {@code state} reads {@code symbol} (0..257) (compile time, tests). */
    int next(int state, int symbol) {
        return step(state, classes[symbol]);
    }

    boolean accepts(int state) {
        return accept[state];
    }

    @Override
    public String toString() {
        return "Dfa[" + accept.length + " states, " + classCount + " classes]";
    }
}
