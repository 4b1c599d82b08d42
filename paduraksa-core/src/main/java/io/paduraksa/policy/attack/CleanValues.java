package io.paduraksa.policy.attack;

import io.paduraksa.text.ByteHash;
import io.paduraksa.text.ValueSlots;

/**
 * Per-thread memo of head values that matched nothing: a browser sends the same User-Agent, Accept,
 * {@code sec-ch-ua} and cookies on every request, and walking them through the automata again is
 * most of what the {@code attacks} policy costs. A value is looked up by its bytes as copied from
 * the request (before any transformation) with the two things the walk depends on, the paranoia
 * level and the part (the rules and automata of a level are shared by every policy, see
 * {@link AttackRules}); a hit is a full byte comparison, never a hash alone, so it answers exactly
 * what the walk would. Only values that no rule matched are kept (none scored, none was excluded,
 * none was passed over for having matched already), so a value that scores is walked (and logged)
 * every time. Besides single values it keeps, under kinds of their own, whole query and
 * {@code Cookie} lines whose every argument was clean ({@link #QUERY_LINE}, {@link #COOKIE_LINE}), header
 * names 913110 does not find ({@link #HEADER_NAME}), {@code all_headers} fields whose name and value were
 * clean ({@link #HEADER_FIELD}) and {@code Accept} values inside 920600's grammar
 * ({@link #ACCEPT_GRAMMAR}); the kind and level pick the slot too, so one value under two kinds
 * keeps two slots.
 *
 * <p>Bounded: {@link #SLOTS} slots of at most {@link #MAX} bytes each (about 260 KiB per event loop
 * that runs the policy), direct-mapped by a hash of the bytes; a longer value is always walked, and a
 * client that sends a new value in every request only evicts (it then costs the walk plus the hash,
 * no more). Allocated once per thread; per request it allocates nothing.
 */
final class CleanValues {
    /** Values longer than this are not kept. */
    static final int MAX = 256;
    static final int SLOTS = 1024;

    private final ValueSlots slots = new ValueSlots(SLOTS, MAX);

    /** Whether an {@code n}-byte value of {@code part} may be kept: head parts only (a body's values are walked where they stand). */
    static boolean keeps(int part, int n) {
        return n <= MAX && (part & (Part.ALL | Part.FILE_NAME | Part.ANY_HEADER)) != 0;
    }

    // Key kinds past the parts' indices: a check in code over a value rather than a walk of a part's
    // automata, whose clean verdict is kept like a walk's.

    /** A header field's lower-cased name that CRS 913110's scanner-header automaton does not find. */
    static final int HEADER_NAME = Part.KINDS;
    /** An {@code Accept} value inside CRS 920600's grammar. */
    static final int ACCEPT_GRAMMAR = Part.KINDS + 1;
    /** A whole query whose every parameter (and {@code ;}-piece) was clean as {@link Part#QUERY}. */
    static final int QUERY_LINE = Part.KINDS + 2;
    /** A whole {@code Cookie} line whose every cookie name and value was clean as {@link Part#COOKIE}. */
    static final int COOKIE_LINE = Part.KINDS + 3;
    /** A header field with {@code all_headers}, its name lower-cased, ':' and its value: the name and the value were clean. */
    static final int HEADER_FIELD = Part.KINDS + 4;

    /** The key of {@code b[0, n)} walked as {@code part} at {@code paranoia}: hash, part, level and length; never 0. */
    static long key(byte[] b, int n, int part, int paranoia) {
        return keyOf(b, n, Part.index(part), paranoia);
    }

    /** The key of {@code b[0, n)} under a part's index or a {@link #HEADER_NAME}-like kind. */
    static long keyOf(byte[] b, int n, int kind, int paranoia) {
        // The kind and level go into the slot too: the same bytes walked in two parts (an Accept value walked as a
        // header and read by 920600's grammar) would otherwise share one slot and evict each other on every request.
        int slotHash = ByteHash.hash(b, 0, n) ^ (kind << 4 | paranoia) * 0x9E3779B9;
        return ValueSlots.key(slotHash, kind << 24 | paranoia << 16 | n);
    }

    /** Whether {@code b[0, n)} under {@code key} was kept as clean. */
    boolean contains(long key, byte[] b, int n) {
        return slots.holds(slots.slot(key), key, b, 0, n);
    }

    /**
     * Copies the untransformed {@code b[0, n)} into its slot, which holds nothing until
     * {@link #keep} says the walk found nothing (staged before the walk, which transforms the value in place).
     */
    void stage(long key, byte[] b, int n) {
        slots.put(slots.slot(key), 0, b, 0, n);
    }

    /** The value staged under {@code key} matched nothing: it is answered from here from now on. */
    void keep(long key) {
        slots.key(slots.slot(key), key);
    }

    /**
     * {@link #stage} and {@link #keep} at once, for bytes found clean that are still as they were looked
     * up (a check that does not transform them in place, a line whose arguments were copied out of it).
     */
    void remember(long key, byte[] b, int n) {
        slots.put(slots.slot(key), key, b, 0, n);
    }
}
