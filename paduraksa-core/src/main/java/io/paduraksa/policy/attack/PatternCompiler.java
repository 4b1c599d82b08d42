package io.paduraksa.policy.attack;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles a rule pattern into a {@link Dfa} that searches for it anywhere in a value: parse, Thompson
 * NFA with {@code .*} in front, subset construction over symbol classes, minimisation. Compile time
 * only; milliseconds per rule, where dk.brics.automaton took up to 0.6 s for one rule (its negated
 * classes and unions determinise and minimise at every step).
 *
 * <p>The syntax is dk.brics.automaton's with {@code RegExp.NONE} (the rules were written for it, and a
 * test checks that every rule's automaton accepts exactly what dk.brics's does): {@code |}, concatenation,
 * {@code ? * + {n} {n,} {n,m}}, {@code [...]} and {@code [^...]} with ranges, {@code .} (any symbol),
 * {@code "literal"}, {@code ()} (the empty string), {@code \} quoting the next character; every other
 * character is itself. The alphabet is the 256 byte values plus {@link Dfa#BEGIN_CHAR} and
 * {@link Dfa#END_CHAR}; a character above them matches nothing.
 */
final class PatternCompiler {
    /** Symbols of the alphabet: bytes 0-255, then BEGIN and END. */
    static final int SYMBOLS = 258;
    private static final int WORDS = (SYMBOLS + 63) / 64;

    private final String pattern;
    private int pos;
    /** NFA: per state its epsilon targets and its (symbol set, target) transitions. */
    private final List<int[]> epsilons = new ArrayList<>();
    private final List<List<long[]>> sets = new ArrayList<>();
    private final List<int[]> targets = new ArrayList<>();

    private PatternCompiler(String pattern) {
        this.pattern = pattern;
    }

    /** {@code pattern} searched anywhere (its matches may start at any position). */
    static Dfa search(String pattern) {
        PatternCompiler c = new PatternCompiler(pattern);
        Node tree = c.parseUnion();
        if (c.pos < pattern.length()) {
            throw c.error("end of pattern expected");
        }
        int start = c.state();
        c.transition(start, all(), start);
        int end = c.build(tree, start);
        return c.determinize(start, end);
    }

    // ---- parsing (dk.brics.automaton's grammar) ----

    private sealed interface Node permits Chars, Concat, Alt, Repeat {
    }

    private record Chars(long[] set) implements Node {
    }

    private record Concat(List<Node> items) implements Node {
    }

    private record Alt(List<Node> items) implements Node {
    }

    /** {@code max} -1: unbounded. */
    private record Repeat(Node body, int min, int max) implements Node {
    }

    private Node parseUnion() {
        List<Node> items = new ArrayList<>();
        items.add(parseConcat());
        while (match('|')) {
            items.add(parseConcat());
        }
        return items.size() == 1 ? items.get(0) : new Alt(items);
    }

    private Node parseConcat() {
        List<Node> items = new ArrayList<>();
        items.add(parseRepeat());
        while (more() && !peek(")|")) {
            items.add(parseRepeat());
        }
        return items.size() == 1 ? items.get(0) : new Concat(items);
    }

    private Node parseRepeat() {
        Node e = parseCharClassExp();
        while (more() && peek("?*+{")) {
            if (match('?')) {
                e = new Repeat(e, 0, 1);
            } else if (match('*')) {
                e = new Repeat(e, 0, -1);
            } else if (match('+')) {
                e = new Repeat(e, 1, -1);
            } else {
                match('{');
                int n = number();
                int m = n;
                if (match(',')) {
                    m = more() && Character.isDigit(pattern.charAt(pos)) ? number() : -1;
                }
                if (!match('}')) {
                    throw error("expected '}'");
                }
                if (m >= 0 && m < n) {
                    throw error("repeat {" + n + "," + m + "}: max below min");
                }
                e = new Repeat(e, n, m);
            }
        }
        return e;
    }

    private int number() {
        int start = pos;
        while (more() && Character.isDigit(pattern.charAt(pos))) {
            pos++;
        }
        if (start == pos || pos - start > 4) {
            throw error("a count of 1 to 4 digits expected");
        }
        return Integer.parseInt(pattern, start, pos, 10);
    }

    private Node parseCharClassExp() {
        if (!match('[')) {
            return parseSimple();
        }
        boolean negate = match('^');
        long[] set = new long[WORDS];
        do {
            char from = parseChar();
            if (match('-')) {
                if (more() && peek("]")) {
                    add(set, from, from);
                    add(set, '-', '-');
                } else {
                    char to = parseChar();
                    if (to < from) {
                        throw error("range " + from + "-" + to + " is reversed");
                    }
                    add(set, from, to);
                }
            } else {
                add(set, from, from);
            }
        } while (more() && !peek("]"));
        if (!match(']')) {
            throw error("expected ']'");
        }
        if (negate) {
            long[] full = all();
            for (int i = 0; i < WORDS; i++) {
                set[i] = full[i] & ~set[i];
            }
        }
        return new Chars(set);
    }

    private Node parseSimple() {
        if (match('.')) {
            return new Chars(all());
        }
        if (match('"')) {
            List<Node> chars = new ArrayList<>();
            while (more() && !peek("\"")) {
                chars.add(single(pattern.charAt(pos++)));
            }
            if (!match('"')) {
                throw error("expected '\"'");
            }
            return new Concat(chars);
        }
        if (match('(')) {
            if (match(')')) {
                return new Concat(List.of());
            }
            Node e = parseUnion();
            if (!match(')')) {
                throw error("expected ')'");
            }
            return e;
        }
        return single(parseChar());
    }

    private char parseChar() {
        match('\\');
        if (!more()) {
            throw error("unexpected end of pattern");
        }
        return pattern.charAt(pos++);
    }

    private static Chars single(char c) {
        long[] set = new long[WORDS];
        add(set, c, c);
        return new Chars(set);
    }

    /** Adds the symbols of characters {@code from..to} (those of the alphabet) to {@code set}. */
    private static void add(long[] set, char from, char to) {
        for (int c = from; c <= Math.min(to, SYMBOLS - 1); c++) {
            set[c >> 6] |= 1L << c;
        }
    }

    private static long[] all() {
        long[] set = new long[WORDS];
        add(set, (char) 0, (char) (SYMBOLS - 1));
        return set;
    }

    private boolean more() {
        return pos < pattern.length();
    }

    private boolean peek(String chars) {
        return more() && chars.indexOf(pattern.charAt(pos)) >= 0;
    }

    private boolean match(char c) {
        if (more() && pattern.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException("pattern " + pattern + ": " + problem + " at position " + pos);
    }

    // ---- Thompson NFA ----

    private int state() {
        epsilons.add(new int[0]);
        sets.add(new ArrayList<>());
        targets.add(new int[0]);
        return epsilons.size() - 1;
    }

    private void epsilon(int from, int to) {
        epsilons.set(from, append(epsilons.get(from), to));
    }

    private void transition(int from, long[] set, int to) {
        sets.get(from).add(set);
        targets.set(from, append(targets.get(from), to));
    }

    private static int[] append(int[] a, int v) {
        int[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    /**
     * Adds {@code node}'s states after {@code from}; returns the state where a match of it ends. Only adds
     * transitions out of {@code from} and out of new states, so paths through {@code from} stay as they were.
     */
    private int build(Node node, int from) {
        return switch (node) {
            case Chars c -> {
                int to = state();
                transition(from, c.set(), to);
                yield to;
            }
            case Concat c -> {
                int at = from;
                for (Node n : c.items()) {
                    at = build(n, at);
                }
                yield at;
            }
            case Alt a -> {
                int to = state();
                for (Node n : a.items()) {
                    int s = state();
                    epsilon(from, s);
                    epsilon(build(n, s), to);
                }
                yield to;
            }
            case Repeat r -> repeat(r, from);
        };
    }

    private int repeat(Repeat r, int from) {
        int at = from;
        for (int i = 0; i < r.min(); i++) {
            at = build(r.body(), at);
        }
        if (r.max() < 0) {
            int loop = state();
            epsilon(at, loop);
            epsilon(build(r.body(), loop), loop);
            return loop;
        }
        int to = state();
        epsilon(at, to);
        for (int i = r.min(); i < r.max(); i++) {
            int s = state();
            epsilon(at, s);
            at = build(r.body(), s);
            epsilon(at, to);
        }
        return to;
    }

    // ---- subset construction ----

    private Dfa determinize(int start, int accept) {
        int[] classes = new int[SYMBOLS];
        int[] representative = new int[SYMBOLS];
        int classCount = symbolClasses(classes, representative);
        Map<BitSet, Integer> ids = new HashMap<>();
        List<BitSet> subsets = new ArrayList<>();
        BitSet first = closure(singleton(start));
        ids.put(first, 0);
        subsets.add(first);
        int[] table = new int[64 * classCount];
        for (int d = 0; d < subsets.size(); d++) {
            BitSet subset = subsets.get(d);
            for (int k = 0; k < classCount; k++) {
                BitSet next = closure(step(subset, representative[k]));
                Integer id = ids.get(next);
                if (id == null) {
                    id = subsets.size();
                    ids.put(next, id);
                    subsets.add(next);
                }
                if (table.length < (d + 1) * classCount) {
                    table = Arrays.copyOf(table, table.length * 2);
                }
                table[d * classCount + k] = id;
            }
        }
        boolean[] accepting = new boolean[subsets.size()];
        for (int d = 0; d < accepting.length; d++) {
            accepting[d] = subsets.get(d).get(accept);
        }
        return Dfa.minimal(classes, classCount, Arrays.copyOf(table, subsets.size() * classCount), accepting, 0);
    }

    /** Symbols that belong to the same transition sets form a class; returns the number of classes. */
    private int symbolClasses(int[] classes, int[] representative) {
        List<long[]> distinct = new ArrayList<>();
        for (List<long[]> list : sets) {
            for (long[] set : list) {
                boolean known = false;
                for (int i = 0; i < distinct.size() && !known; i++) {
                    known = Arrays.equals(distinct.get(i), set);
                }
                if (!known) {
                    distinct.add(set);
                }
            }
        }
        Object[] signatures = new Object[SYMBOLS];
        for (int c = 0; c < SYMBOLS; c++) {
            BitSet signature = new BitSet(distinct.size());
            for (int i = 0; i < distinct.size(); i++) {
                if ((distinct.get(i)[c >> 6] & 1L << c) != 0) {
                    signature.set(i);
                }
            }
            signatures[c] = signature;
        }
        return Dfa.numberClasses(signatures, classes, representative);
    }

    private static BitSet singleton(int state) {
        BitSet b = new BitSet();
        b.set(state);
        return b;
    }

    private BitSet step(BitSet subset, int symbol) {
        BitSet out = new BitSet();
        for (int s = subset.nextSetBit(0); s >= 0; s = subset.nextSetBit(s + 1)) {
            List<long[]> list = sets.get(s);
            int[] to = targets.get(s);
            for (int i = 0; i < to.length; i++) {
                if ((list.get(i)[symbol >> 6] & 1L << symbol) != 0) {
                    out.set(to[i]);
                }
            }
        }
        return out;
    }

    private BitSet closure(BitSet subset) {
        int[] stack = new int[epsilons.size()];
        int n = 0;
        for (int s = subset.nextSetBit(0); s >= 0; s = subset.nextSetBit(s + 1)) {
            stack[n++] = s;
        }
        while (n > 0) {
            for (int to : epsilons.get(stack[--n])) {
                if (!subset.get(to)) {
                    subset.set(to);
                    stack[n++] = to;
                }
            }
        }
        return subset;
    }
}
