package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;

/**
 * The connection machinery of HTTP/2 (RFC 9113 sections 3.4, 5, 6, 8), role-neutral: the frames
 * {@link Http2FrameReader} reads become stream-state transitions, flow control and answers to the
 * peer's control frames; what a stream means (a request to gate, a response to relay) is the
 * {@link Handler}'s. A server and an upstream client differ only in {@link Config#server}: which
 * stream ids the peer opens, which field blocks it sends, and that a server resets a stream whose
 * response is complete while the request still comes (section 8.1).
 *
 * <p><b>Streams</b> live in a table of {@link Config#maxConcurrentStreams} slots, parallel arrays
 * indexed by slot (no object per stream, no map, no boxing); the handler keeps its own per-slot
 * state in an array of the same size. A stream's slot is freed when both sides ended it or it was
 * reset; {@link Handler#onStreamClosed} says so. Ids at or below the highest the peer opened and not
 * in the table are closed (section 5.1.1).
 *
 * <p><b>Flow control</b> (section 6.9): what the peer may send is counted per stream and for the
 * connection; bytes the handler delivers on are {@link #consumed} when it is done with them (for a
 * forwarded body: when the upstream took them), and credit goes back in a WINDOW_UPDATE once half
 * a window is consumed, not per frame. What we send waits per stream ({@link #writeData}) while the
 * stream's or the connection's window or the socket is full.
 *
 * <p><b>Writes</b> go into one outbound buffer that {@link #flush} writes once: the handler calls it
 * at the end of a read batch ({@code channelReadComplete}) and after work done outside a read. No
 * promise, future or frame object per frame; void promises throughout.
 *
 * <p><b>Protections</b>: streams over SETTINGS_MAX_CONCURRENT_STREAMS are refused (REFUSED_STREAM);
 * field blocks over the header list size are the decoder's (a stream error) and the reader's (a
 * connection error at 1.25 times it); more than {@link Config#maxResetsPerWindow} RST_STREAM
 * frames per window (rapid reset, CVE-2023-44487), more small CONTINUATION frames per block than
 * {@link Config#maxSmallContinuationFrames}, more than {@link Config#maxConsecutiveEmptyFrames}
 * empty DATA frames in a row and more than {@link Config#maxQueuedControlFrames} answers (SETTINGS
 * and PING acks, resets) written while the peer does not read end the connection with
 * ENHANCE_YOUR_CALM; {@link #sweepSendTimeouts} resets streams whose data waited too long for the
 * peer's windows; a declared content-length must match the DATA received (section 8.1.1).
 *
 * <p>Thread: the connection's event loop. Per frame and per stream nothing is allocated.
 */
public final class Http2Connection implements Http2FrameListener {
    /** What a role does with streams; every call runs on the event loop, inside {@link #read} or a write. */
    public interface Handler {
        /**
         * Where the fields of a field block on stream {@code slot} go: the peer's first block
         * (request or response head) or, with {@code trailers}, its trailers. Valid during the
         * following {@link #onHeaders} or {@link #onTrailers} call only.
         */
        HpackFieldSink fields(int slot, boolean trailers);

        /**
         * The first field block of stream {@code slot} ({@code streamId}), decoded into
         * {@link #fields}. {@code violation} is null, {@link Http2Violation#HEADER_LIST_TOO_LARGE}
         * (the fields are incomplete: a server answers 431) or {@link Http2Violation#AUTHORITY_HOST_MISMATCH}
         * (a server answers 400); other stream errors never get here (the stream is reset).
         */
        void onHeaders(int slot, int streamId, boolean endStream, Http2Violation violation);

        /** Trailers ended stream {@code slot}'s incoming side. */
        void onTrailers(int slot);

        /**
         * DATA of stream {@code slot}: {@code buf[index, index + length)}, valid during the call
         * (retain a slice to keep it). Give the bytes back with {@link #consumed} when done.
         */
        void onData(int slot, ByteBuf buf, int index, int length, boolean endStream);

        /** Stream {@code slot} can take more of what we send (its window, the connection's or the socket opened). */
        void onWritable(int slot);

        /** The peer opened stream {@code slot}'s window (progress for a send timeout), or the connection's when -1. */
        void onWindowUpdate(int slot);

        /**
         * Stream {@code slot} is gone: both sides ended it ({@code errorCode} -1), or it was reset by
         * the peer, by us for a protocol error or a timeout, or by the connection's end (the code).
         * Its slot may be reused right after this call.
         */
        void onStreamClosed(int slot, int streamId, long errorCode);

        /** The peer sent GOAWAY. */
        default void onGoAway(int lastStreamId, long errorCode) {
        }

        /** Whether a graceful close must wait longer than {@link Config#gracefulShutdownMillis} (an open tunnel). */
        default boolean keepOpen() {
            return false;
        }

        /** The peer's SETTINGS were applied (and acknowledged): an upstream client may open streams now. */
        default void onSettings() {
        }
    }

    /**
     * Settings and limits of one connection. {@code maxHeaderListSize} is our
     * SETTINGS_MAX_HEADER_LIST_SIZE (the decoder's stream-error limit; the reader's connection
     * error comes at 1.25 times it, as Netty's did).
     */
    public record Config(boolean server, int maxConcurrentStreams, int maxHeaderListSize, boolean connectProtocol,
            int maxResetsPerWindow, int resetWindowSeconds, int maxSmallContinuationFrames,
            int maxConsecutiveEmptyFrames, int maxQueuedControlFrames, long gracefulShutdownMillis) {
    }

    private static final int DEFAULT_WINDOW = 65_535;
    /** Our SETTINGS_INITIAL_WINDOW_SIZE (not sent: the default): what a stream may send before we credit it. */
    public static final int INITIAL_WINDOW = DEFAULT_WINDOW;
    private static final byte REMOTE_CLOSED = 1;
    private static final byte LOCAL_CLOSED = 2;
    private static final byte HEADERS_RECEIVED = 4;
    private static final byte PENDING_END = 8;
    private static final byte RESET_WHEN_DONE = 16;
    /** Opaque data of the PING sent with a graceful shutdown's first GOAWAY ("PADURAKS"). */
    public static final long DRAIN_PING = 0x5041445552414b53L;
    private static final long DRAIN_ACK_MILLIS = 1_000;
    private static final int OUT_FLUSH_BYTES = 64 * 1024;
    private static final long LINGER_MILLIS = 200;

    private final Config config;
    private final Handler handler;
    private final Http2FrameReader reader;
    private final HpackDecoder decoder;
    private final long resetWindowNanos;
    private ChannelHandlerContext ctx;
    private ByteBuf out;
    /** A full outbound buffer was handed to the channel and waits for the flush. */
    private boolean spilled;

    // ---- streams, by slot
    private final int[] ids;
    private final byte[] flags;
    private final int[] sendWindow;
    private final int[] recvWindow;
    /** Bytes delivered to the handler and not yet consumed: credited to the connection when the slot is freed. */
    private final int[] held;
    /** Bytes consumed and not yet credited to the stream. */
    private final int[] unacked;
    private final long[] expectedLength;
    private final long[] receivedLength;
    private final long[] blockedSince;
    private final ByteBuf[] pending;
    /** Trailers waiting behind the pending data (a field block), rare. */
    private final ByteBuf[] pendingTrailers;
    private int active;
    private int lastSlot;

    // ---- connection state
    private boolean prefaceRead;
    private boolean firstFrameChecked;
    private int highestRemote;
    private int nextLocal;
    private int connSendWindow = DEFAULT_WINDOW;
    private int connRecvWindow = DEFAULT_WINDOW;
    private int connUnacked;
    /** Our stream receive window (SETTINGS_INITIAL_WINDOW_SIZE when not the default) and the connection's. */
    private int streamRecvInitial = DEFAULT_WINDOW;
    private int connRecvTarget = DEFAULT_WINDOW;
    /** Set while a reset of ours (a violation or a timeout, not the peer's RST_STREAM) reports its stream closed. */
    private boolean localReset;
    private int peerInitialWindow = DEFAULT_WINDOW;
    private int peerMaxFrameSize = Http2Frames.MIN_MAX_FRAME_SIZE;
    private long peerMaxConcurrentStreams = Integer.MAX_VALUE;
    private boolean peerConnectProtocol;
    // settings of the frame being read, applied at its end
    private int newInitialWindow = -1;
    private int newMaxFrameSize = -1;

    private long resetWindowStart;
    private int resets;
    private int emptyFrames;
    private int queuedControl;
    private boolean goAwaySent;
    private int goAwayLastId = Integer.MAX_VALUE;
    private boolean goAwayReceived;
    private boolean draining;
    private boolean closing;
    private boolean closed;
    private boolean inRead;

    public Http2Connection(Config config, Handler handler) {
        this.config = config;
        this.handler = handler;
        int n = config.maxConcurrentStreams();
        this.reader = new Http2FrameReader(config.maxHeaderListSize() + config.maxHeaderListSize() / 4);
        this.reader.maxSmallContinuationFrames(config.maxSmallContinuationFrames());
        this.decoder = new HpackDecoder(Http2Frames.DEFAULT_HEADER_TABLE_SIZE, config.maxHeaderListSize(),
                config.connectProtocol());
        this.resetWindowNanos = TimeUnit.SECONDS.toNanos(config.resetWindowSeconds());
        this.ids = new int[n];
        this.flags = new byte[n];
        this.sendWindow = new int[n];
        this.recvWindow = new int[n];
        this.held = new int[n];
        this.unacked = new int[n];
        this.expectedLength = new long[n];
        this.receivedLength = new long[n];
        this.blockedSince = new long[n];
        this.pending = new ByteBuf[n];
        this.pendingTrailers = new ByteBuf[n];
        this.prefaceRead = !config.server();
        this.firstFrameChecked = false;
        this.nextLocal = config.server() ? 2 : 1;
    }

    // =====================================================================================
    // life cycle

    /**
     * Receive windows larger than the default 65,535 (before {@link #start}): {@code stream} goes out
     * as SETTINGS_INITIAL_WINDOW_SIZE, the connection's is opened with a WINDOW_UPDATE right after our
     * SETTINGS. An upstream client uses them so that a response, or a stream whose client paused,
     * does not hold the other streams back; credit still goes back once half a window is consumed.
     */
    public void receiveWindows(int stream, int connection) {
        this.streamRecvInitial = stream;
        this.connRecvTarget = connection;
    }

    /** Starts the connection: the client's preface (client role) and our SETTINGS, flushed. */
    public void start(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ByteBuf o = out();
        if (!config.server()) {
            o.writeBytes(Http2Frames.CLIENT_PREFACE);
        }
        boolean window = streamRecvInitial != DEFAULT_WINDOW;
        int count = 2 + (config.connectProtocol() ? 1 : 0) + (config.server() ? 0 : 1) + (window ? 1 : 0);
        Http2FrameWriter.settingsHeader(o, count);
        Http2FrameWriter.setting(o, Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS, config.maxConcurrentStreams());
        Http2FrameWriter.setting(o, Http2Frames.SETTINGS_MAX_HEADER_LIST_SIZE, config.maxHeaderListSize());
        if (config.connectProtocol()) {
            Http2FrameWriter.setting(o, Http2Frames.SETTINGS_ENABLE_CONNECT_PROTOCOL, 1);
        }
        if (!config.server()) {
            Http2FrameWriter.setting(o, Http2Frames.SETTINGS_ENABLE_PUSH, 0);
        }
        if (window) {
            Http2FrameWriter.setting(o, Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE, streamRecvInitial);
        }
        if (connRecvTarget > DEFAULT_WINDOW) {
            Http2FrameWriter.windowUpdate(o, 0, connRecvTarget - DEFAULT_WINDOW);
            connRecvWindow = connRecvTarget;
        }
        flush();
    }

    /** Reads every whole frame of {@code in} (the preface first, server role); a partial frame stays in it. */
    public void read(ByteBuf in) {
        if (closed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        inRead = true;
        try {
            if (!prefaceRead && !readPreface(in)) {
                return;
            }
            if (!firstFrameChecked && in.readableBytes() >= Http2Frames.HEADER_LENGTH) {
                firstFrameChecked = true;
                int at = in.readerIndex();
                if (in.getUnsignedByte(at + 3) != Http2Frames.SETTINGS || (in.getUnsignedByte(at + 4) & Http2Frames.FLAG_ACK) != 0) {
                    onConnectionError(Http2Violation.FIRST_FRAME_NOT_SETTINGS);
                    in.skipBytes(in.readableBytes());
                    return;
                }
            }
            reader.read(in, this);
        } finally {
            inRead = false;
        }
    }

    private boolean readPreface(ByteBuf in) {
        byte[] preface = Http2Frames.CLIENT_PREFACE;
        int n = Math.min(in.readableBytes(), preface.length);
        int at = in.readerIndex();
        for (int i = 0; i < n; i++) {
            if (in.getByte(at + i) != preface[i]) {
                in.skipBytes(in.readableBytes());
                onConnectionError(Http2Violation.PREFACE_INVALID);
                return false;
            }
        }
        if (n < preface.length) {
            return false;
        }
        in.skipBytes(preface.length);
        prefaceRead = true;
        return true;
    }

    /** The channel closed: every stream is gone (reported with CANCEL), buffers released. */
    public void channelClosed() {
        if (closed) {
            return;
        }
        closed = true;
        reader.close();
        for (int slot = 0; slot < ids.length; slot++) {
            if (ids[slot] != 0) {
                free(slot, Http2ErrorCodes.CANCEL);
            }
        }
        if (out != null) {
            out.release();
            out = null;
        }
    }

    public boolean isClosed() {
        return closed;
    }

    // =====================================================================================
    // streams: lookup and state

    private int find(int streamId) {
        int s = lastSlot;
        if (ids[s] == streamId) {
            return s;
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == streamId) {
                lastSlot = i;
                return i;
            }
        }
        return -1;
    }

    private int allocate(int streamId) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == 0) {
                ids[i] = streamId;
                flags[i] = 0;
                sendWindow[i] = peerInitialWindow;
                recvWindow[i] = streamRecvInitial;
                held[i] = 0;
                unacked[i] = 0;
                expectedLength[i] = -1;
                receivedLength[i] = 0;
                blockedSince[i] = 0;
                active++;
                lastSlot = i;
                return i;
            }
        }
        return -1;
    }

    /**
     * Opens a stream of our own (the client role's request; a server never opens one, it does not
     * push): the next id of our parity, a slot, the peer's initial window. Returns the slot, or -1
     * when the table is full, the peer's SETTINGS_MAX_CONCURRENT_STREAMS is reached or a GOAWAY
     * came (the caller waits or uses another connection). Write the field block with
     * {@link #writeHeaders} next.
     */
    public int openStream() {
        if (goAwayReceived || closing || closed || active >= peerMaxConcurrentStreams || nextLocal < 0) {
            return -1;
        }
        int slot = allocate(nextLocal);
        if (slot >= 0) {
            nextLocal += 2;
        }
        return slot;
    }

    /** The stream id in {@code slot}, or 0 when the slot is free. */
    public int streamId(int slot) {
        return ids[slot];
    }

    /** Streams open now (any state but closed). */
    public int activeStreams() {
        return active;
    }

    public int capacity() {
        return ids.length;
    }

    /**
     * Client role: the response head just reported on stream {@code slot} was interim (1xx, RFC 9113
     * 8.1): the next field block is a head again, not trailers.
     */
    public void interim(int slot) {
        flags[slot] &= ~HEADERS_RECEIVED;
    }

    /**
     * Whether the {@link Handler#onStreamClosed} being called comes from a reset of ours (a malformed
     * frame or field block, a window overrun, a send timeout) rather than the peer's RST_STREAM,
     * GOAWAY or the connection's end.
     */
    public boolean isLocalReset() {
        return localReset;
    }

    /** The peer's content-length for stream {@code slot}: DATA must add up to it (section 8.1.1); -1 for none. */
    public void expectLength(int slot, long length) {
        expectedLength[slot] = length;
    }

    /** The peer's SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441). */
    public boolean peerConnectProtocol() {
        return peerConnectProtocol;
    }

    public long peerMaxConcurrentStreams() {
        return peerMaxConcurrentStreams;
    }

    // =====================================================================================
    // reading: Http2FrameListener

    @Override
    public void onHeaders(int streamId, ByteBuf block, int index, int length, int padding, boolean endStream,
            int dependency, int weight) {
        if (length == 0 && !endStream && ++emptyFrames > config.maxConsecutiveEmptyFrames()) {
            onConnectionError(Http2Violation.EMPTY_FRAME_FLOOD);
            return;
        }
        if (length > 0) {
            emptyFrames = 0;
        }
        if (!isPeerInitiated(streamId)) {
            int slot = find(streamId);
            if (slot < 0) {
                // A stream of ours that we reset or that ended: frames in flight are ignored (section 5.1,
                // "closed"); one we never opened is a connection error.
                if (discard(block, index, length) && !closed && streamId >= nextLocal) {
                    onConnectionError(Http2Violation.STREAM_IDLE);
                }
                return;
            }
            existingStreamHeaders(slot, block, index, length, endStream);
            return;
        }
        int slot = find(streamId);
        if (slot >= 0) {
            existingStreamHeaders(slot, block, index, length, endStream);
            return;
        }
        if (streamId <= highestRemote) {
            if (discard(block, index, length)) {
                writeRst(streamId, Http2Violation.STREAM_CLOSED_FRAME.code());
            }
            return;
        }
        highestRemote = streamId;
        if (goAwaySent && streamId > goAwayLastId) {
            discard(block, index, length); // after our GOAWAY: ignored (section 6.8), the table kept in step
            return;
        }
        slot = active < ids.length && active < config.maxConcurrentStreams() ? allocate(streamId) : -1;
        if (slot < 0) {
            if (discard(block, index, length)) {
                writeRst(streamId, Http2Violation.STREAM_REFUSED.code());
            }
            return;
        }
        Http2Violation v = decoder.decode(block, index, length,
                config.server() ? Http2FieldValidator.REQUEST : Http2FieldValidator.RESPONSE, handler.fields(slot, false));
        if (v != null && v.isConnectionError()) {
            free(slot, v.code());
            onConnectionError(v);
            return;
        }
        flags[slot] |= HEADERS_RECEIVED;
        if (v != null && !isAnswerable(v)) {
            resetStream(slot, v.code(), true);
            return;
        }
        if (endStream) {
            flags[slot] |= REMOTE_CLOSED;
        }
        handler.onHeaders(slot, streamId, endStream, v);
    }

    /**
     * Stream errors a server may answer instead of resetting: a field section over the list size
     * (431, RFC 9113 10.5.1: the fields are incomplete) and {@code host} against {@code :authority}
     * (400: the fields are complete, a client learns which).
     */
    private static boolean isAnswerable(Http2Violation v) {
        return v == Http2Violation.HEADER_LIST_TOO_LARGE || v == Http2Violation.AUTHORITY_HOST_MISMATCH;
    }

    /** A field block on a stream that exists: trailers, or (client role) the response head. */
    private void existingStreamHeaders(int slot, ByteBuf block, int index, int length, boolean endStream) {
        if ((flags[slot] & REMOTE_CLOSED) != 0) {
            if (discard(block, index, length)) {
                resetStream(slot, Http2Violation.STREAM_CLOSED_FRAME.code(), true);
            }
            return;
        }
        boolean first = (flags[slot] & HEADERS_RECEIVED) == 0;
        int kind = first ? Http2FieldValidator.RESPONSE : Http2FieldValidator.TRAILERS;
        Http2Violation v = decoder.decode(block, index, length, kind, handler.fields(slot, !first));
        if (v != null && v.isConnectionError()) {
            onConnectionError(v);
            return;
        }
        if (v == null && !first && !endStream) {
            v = Http2Violation.TRAILERS_WITHOUT_END_STREAM;
        }
        if (v == null && endStream && !first && !lengthMatches(slot)) {
            v = Http2Violation.CONTENT_LENGTH_MISMATCH;
        }
        if (v != null) {
            resetStream(slot, v.code(), true);
            return;
        }
        int streamId = ids[slot];
        flags[slot] |= HEADERS_RECEIVED;
        if (endStream) {
            flags[slot] |= REMOTE_CLOSED;
        }
        if (first) {
            handler.onHeaders(slot, streamId, endStream, null);
        } else {
            handler.onTrailers(slot);
        }
        if (endStream && ids[slot] == streamId) {
            freeIfDone(slot);
        }
    }

    /** Decodes a block nobody wants (the dynamic table must stay in step); false after a connection error. */
    private boolean discard(ByteBuf block, int index, int length) {
        Http2Violation v = decoder.decode(block, index, length, Http2FieldValidator.NONE, DISCARD);
        if (v != null && v.isConnectionError()) {
            onConnectionError(v);
            return false;
        }
        return true;
    }

    private static final HpackFieldSink DISCARD = (name, nameIndex, nameLength, value, valueIndex, valueLength, staticIndex) -> {
    };

    private boolean isPeerInitiated(int streamId) {
        return ((streamId & 1) == 1) == config.server();
    }

    private boolean isIdle(int streamId) {
        return isPeerInitiated(streamId) ? streamId > highestRemote : streamId >= nextLocal;
    }

    private boolean lengthMatches(int slot) {
        long expected = expectedLength[slot];
        return expected < 0 || expected == receivedLength[slot];
    }

    @Override
    public void onData(int streamId, ByteBuf buf, int index, int length, int padding, boolean endStream) {
        int flow = length + padding;
        if (flow > connRecvWindow) {
            onConnectionError(Http2Violation.CONNECTION_WINDOW_EXCEEDED);
            return;
        }
        connRecvWindow -= flow;
        if (length == 0 && !endStream) {
            if (++emptyFrames > config.maxConsecutiveEmptyFrames()) {
                onConnectionError(Http2Violation.EMPTY_FRAME_FLOOD);
                return;
            }
        } else {
            emptyFrames = 0;
        }
        int slot = find(streamId);
        if (slot < 0) {
            creditConnection(flow);
            if (isIdle(streamId)) {
                onConnectionError(Http2Violation.STREAM_IDLE);
            } else {
                writeRst(streamId, Http2Violation.STREAM_CLOSED_FRAME.code());
            }
            return;
        }
        if ((flags[slot] & REMOTE_CLOSED) != 0 || (flags[slot] & HEADERS_RECEIVED) == 0) {
            creditConnection(flow);
            resetStream(slot, Http2Violation.STREAM_CLOSED_FRAME.code(), true);
            return;
        }
        if (flow > recvWindow[slot]) {
            creditConnection(flow);
            resetStream(slot, Http2Violation.STREAM_WINDOW_EXCEEDED.code(), true);
            return;
        }
        recvWindow[slot] -= flow;
        long received = receivedLength[slot] += length;
        long expected = expectedLength[slot];
        if (expected >= 0 && (received > expected || endStream && received != expected)) {
            creditConnection(flow);
            resetStream(slot, Http2Violation.CONTENT_LENGTH_MISMATCH.code(), true);
            return;
        }
        if (padding > 0) {
            consumedStream(slot, padding);
            creditConnection(padding);
        }
        held[slot] += length;
        if (endStream) {
            flags[slot] |= REMOTE_CLOSED;
        }
        handler.onData(slot, buf, index, length, endStream);
        if (endStream && ids[slot] == streamId) {
            freeIfDone(slot);
        }
    }

    /**
     * The handler is done with {@code n} bytes of stream {@code slot}'s DATA: credit goes back to
     * the peer once half a window is consumed (stream and connection apart).
     */
    public void consumed(int slot, int n) {
        if (n <= 0 || ids[slot] == 0) {
            return;
        }
        int h = Math.min(n, held[slot]);
        held[slot] -= h;
        consumedStream(slot, h);
        creditConnection(h);
    }

    private void consumedStream(int slot, int n) {
        if ((flags[slot] & REMOTE_CLOSED) != 0) {
            return; // the peer sends no more on it: no stream credit needed
        }
        int u = unacked[slot] += n;
        if (u >= streamRecvInitial / 2) {
            unacked[slot] = 0;
            recvWindow[slot] += u;
            Http2FrameWriter.windowUpdate(out(), ids[slot], u);
        }
    }

    private void creditConnection(int n) {
        if (n <= 0 || closed) {
            return;
        }
        int u = connUnacked += n;
        if (u >= connRecvTarget / 2) {
            connUnacked = 0;
            connRecvWindow += u;
            Http2FrameWriter.windowUpdate(out(), 0, u);
        }
    }

    @Override
    public void onPriority(int streamId, int dependency, int weight) {
        // RFC 9113 5.3.2: the priority signalling of RFC 7540 is deprecated; ignored.
    }

    @Override
    public void onRstStream(int streamId, long errorCode) {
        long now = System.nanoTime();
        if (resets == 0 || now - resetWindowStart > resetWindowNanos) {
            resetWindowStart = now;
            resets = 0;
        }
        if (++resets > config.maxResetsPerWindow()) {
            onConnectionError(Http2Violation.RAPID_RESET);
            return;
        }
        int slot = find(streamId);
        if (slot >= 0) {
            free(slot, errorCode);
        } else if (isIdle(streamId)) {
            onConnectionError(Http2Violation.STREAM_IDLE);
        }
    }

    @Override
    public void onSetting(int id, long value) {
        switch (id) {
            case Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS -> peerMaxConcurrentStreams = value;
            case Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE -> newInitialWindow = (int) value;
            case Http2Frames.SETTINGS_MAX_FRAME_SIZE -> newMaxFrameSize = (int) value;
            case Http2Frames.SETTINGS_ENABLE_CONNECT_PROTOCOL -> peerConnectProtocol = value == 1;
            default -> {
                // HEADER_TABLE_SIZE: we encode without the dynamic table; ENABLE_PUSH: we never push;
                // MAX_HEADER_LIST_SIZE: advisory; unknown ids are ignored (section 6.5.2)
            }
        }
    }

    @Override
    public void onSettingsEnd() {
        if (newMaxFrameSize > 0) {
            peerMaxFrameSize = newMaxFrameSize;
            newMaxFrameSize = -1;
        }
        int delta = 0;
        if (newInitialWindow >= 0) {
            delta = newInitialWindow - peerInitialWindow;
            peerInitialWindow = newInitialWindow;
            newInitialWindow = -1;
            for (int slot = 0; slot < ids.length; slot++) {
                if (ids[slot] != 0) {
                    long w = (long) sendWindow[slot] + delta;
                    if (w > Http2Frames.MAX_WINDOW_SIZE) {
                        onConnectionError(Http2Violation.INITIAL_WINDOW_OVERFLOW);
                        return;
                    }
                    sendWindow[slot] = (int) w;
                }
            }
        }
        Http2FrameWriter.settingsAck(out());
        controlFrameWritten();
        if (delta > 0) {
            writeAllPending();
        }
        if (!closed) {
            handler.onSettings();
        }
    }

    @Override
    public void onSettingsAck() {
        // our settings are what the reader and decoder were built with (nothing waits for the ack)
    }

    @Override
    public void onPushPromise(int streamId, int promisedStreamId, ByteBuf block, int index, int length, int padding) {
        onConnectionError(Http2Violation.PUSH_PROMISE_RECEIVED);
    }

    @Override
    public void onPing(long data, boolean ack) {
        if (ack) {
            if (data == DRAIN_PING && draining) {
                finishDrain();
            }
            return;
        }
        Http2FrameWriter.ping(out(), data, true);
        controlFrameWritten();
    }

    @Override
    public void onGoAway(int lastStreamId, long errorCode, ByteBuf debug, int index, int length) {
        goAwayReceived = true;
        handler.onGoAway(lastStreamId, errorCode);
        if (!config.server()) {
            for (int slot = 0; slot < ids.length; slot++) {
                if (ids[slot] > lastStreamId && !isPeerInitiated(ids[slot])) {
                    free(slot, Http2ErrorCodes.REFUSED_STREAM); // never processed: may be retried (section 6.8)
                }
            }
        }
        closeIfIdle();
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        if (streamId == 0) {
            long w = (long) connSendWindow + increment;
            if (w > Http2Frames.MAX_WINDOW_SIZE) {
                onConnectionError(Http2Violation.CONNECTION_WINDOW_OVERFLOW);
                return;
            }
            connSendWindow = (int) w;
            handler.onWindowUpdate(-1);
            writeAllPending();
            return;
        }
        int slot = find(streamId);
        if (slot < 0) {
            if (isIdle(streamId)) {
                onConnectionError(Http2Violation.STREAM_IDLE);
            }
            return; // closed: frames in flight are ignored (section 5.1)
        }
        long w = (long) sendWindow[slot] + increment;
        if (w > Http2Frames.MAX_WINDOW_SIZE) {
            resetStream(slot, Http2Violation.STREAM_WINDOW_OVERFLOW.code(), true);
            return;
        }
        sendWindow[slot] = (int) w;
        handler.onWindowUpdate(slot);
        if (ids[slot] == streamId) {
            resume(slot);
        }
    }

    @Override
    public void onStreamError(int streamId, Http2Violation violation) {
        int slot = find(streamId);
        if (slot >= 0) {
            resetStream(slot, violation.code(), true);
        } else if (!isIdle(streamId) || violation == Http2Violation.PRIORITY_LENGTH) {
            writeRst(streamId, violation.code());
        } else {
            onConnectionError(Http2Violation.STREAM_IDLE);
        }
    }

    @Override
    public void onConnectionError(Http2Violation violation) {
        if (closed) {
            return;
        }
        reader.stop();
        goAway(highestRemote, violation.code());
        closing = true;
        flush();
        lingerThenClose();
    }

    /**
     * Closes a short while after a connection error's GOAWAY, reading and discarding meanwhile: a
     * close with the peer's bytes still unread makes the kernel answer with a TCP reset, and a
     * peer that receives the reset drops what it had not read yet, our GOAWAY with it.
     */
    private void lingerThenClose() {
        ctx.executor().schedule(new Runnable() { // once per connection error
            @Override
            public void run() {
                ctx.close();
            }
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    // =====================================================================================
    // writing

    /** The outbound buffer of this batch, for frames the handler writes itself (with {@link Http2FrameWriter}). */
    public ByteBuf out() {
        ByteBuf o = out;
        if (o == null) {
            o = out = ctx.alloc().ioBuffer(4096);
        }
        return o;
    }

    /** Writes and flushes what this batch wrote; nothing when nothing was written. */
    public void flush() {
        ByteBuf o = out;
        if (o == null || ctx == null) {
            if (spilled) {
                spilled = false;
                ctx.flush();
            }
            return;
        }
        out = null;
        spilled = false;
        if (!o.isReadable()) {
            o.release();
            ctx.flush();
            return;
        }
        ctx.writeAndFlush(o, ctx.voidPromise());
    }

    /** Hands a large batch to the channel before more is added (flushed with the batch's end). */
    private void spill() {
        ByteBuf o = out;
        if (o != null && o.readableBytes() >= OUT_FLUSH_BYTES) {
            out = null;
            spilled = true;
            ctx.write(o, ctx.voidPromise());
        }
    }

    private void controlFrameWritten() {
        if (ctx.channel().isWritable()) {
            queuedControl = 0;
        } else if (++queuedControl > config.maxQueuedControlFrames()) {
            onConnectionError(Http2Violation.CONTROL_FRAME_FLOOD);
        }
    }

    /**
     * A field block on stream {@code slot}: HEADERS and CONTINUATION of the peer's frame size. With
     * {@code endStream} our side ends, and the stream is freed once the peer's side has too (or
     * at once, reset, after {@link #resetWhenDone}).
     */
    public void writeHeaders(int slot, ByteBuf block, int index, int length, boolean endStream) {
        Http2FrameWriter.headers(out(), ids[slot], block, index, length, endStream, peerMaxFrameSize);
        if (endStream) {
            endLocal(slot);
        }
    }

    /**
     * Trailers (a field block that ends the stream): written now, or after the data that still
     * waits for the peer's window (copied: the block may be the caller's scratch).
     */
    public void writeTrailers(int slot, ByteBuf block, int index, int length) {
        if (pending[slot] == null) {
            writeHeaders(slot, block, index, length, true);
            return;
        }
        ByteBuf t = ctx.alloc().heapBuffer(length);
        t.writeBytes(block, index, length);
        pendingTrailers[slot] = t;
        flags[slot] |= PENDING_END;
    }

    /**
     * DATA on stream {@code slot}: {@code data} (ownership passes here) goes out in frames as far as
     * the stream's and the connection's windows and the socket allow; the rest waits and goes when
     * they open. With {@code endStream} the last frame ends our side.
     */
    public void writeData(int slot, ByteBuf data, boolean endStream) {
        if (ids[slot] == 0 || (flags[slot] & (LOCAL_CLOSED | PENDING_END)) != 0) {
            data.release();
            return;
        }
        ByteBuf p = pending[slot];
        if (p == null) {
            pending[slot] = data;
        } else if (data.isReadable()) {
            pending[slot] = append(p, data);
        } else {
            data.release();
        }
        if (endStream) {
            flags[slot] |= PENDING_END;
        }
        writePending(slot);
    }

    private ByteBuf append(ByteBuf p, ByteBuf data) {
        io.netty.buffer.CompositeByteBuf c;
        if (p instanceof io.netty.buffer.CompositeByteBuf composite) {
            c = composite;
        } else {
            c = ctx.alloc().compositeBuffer(64);
            c.addComponent(true, p);
        }
        c.addComponent(true, data);
        return c;
    }

    /**
     * Once our side of stream {@code slot} has ended, reset it with NO_ERROR if the peer still
     * sends (a server's complete answer to a request whose body it does not need, RFC 9113 8.1);
     * otherwise such a stream stays half-closed until the peer ends it.
     */
    public void resetWhenDone(int slot) {
        flags[slot] |= RESET_WHEN_DONE;
    }

    /** Whether stream {@code slot} can take more data now: nothing waits, its window, the connection's and the socket are open. */
    public boolean isWritable(int slot) {
        return ids[slot] != 0 && pending[slot] == null && sendWindow[slot] > 0 && connSendWindow > 0
                && ctx.channel().isWritable();
    }

    /** Since when stream {@code slot}'s data waits for the peer (System.nanoTime, never 0), or 0. */
    public long blockedSince(int slot) {
        return blockedSince[slot];
    }

    private void writePending(int slot) {
        ByteBuf p = pending[slot];
        int streamId = ids[slot];
        while (p != null && p.isReadable()) {
            int n = Math.min(Math.min(p.readableBytes(), peerMaxFrameSize), Math.min(sendWindow[slot], connSendWindow));
            if (n <= 0 || !ctx.channel().isWritable()) {
                if (blockedSince[slot] == 0) {
                    blockedSince[slot] = System.nanoTime() | 1;
                }
                return;
            }
            boolean last = n == p.readableBytes() && (flags[slot] & PENDING_END) != 0 && pendingTrailers[slot] == null;
            ByteBuf o = out();
            Http2FrameWriter.dataHeader(o, streamId, n, last);
            o.writeBytes(p, n);
            sendWindow[slot] -= n;
            connSendWindow -= n;
            spill();
            if (last) {
                pending[slot] = null;
                p.release();
                endLocal(slot);
                return;
            }
        }
        if (p != null) {
            pending[slot] = null;
            p.release();
        }
        blockedSince[slot] = 0;
        if ((flags[slot] & PENDING_END) != 0) {
            ByteBuf t = pendingTrailers[slot];
            if (t != null) {
                pendingTrailers[slot] = null;
                Http2FrameWriter.headers(out(), streamId, t, t.readerIndex(), t.readableBytes(), true, peerMaxFrameSize);
                t.release();
            } else {
                Http2FrameWriter.dataHeader(out(), streamId, 0, true);
            }
            endLocal(slot);
        }
    }

    /** Sends what waits on stream {@code slot}; tells the handler when the stream can take more. */
    private void resume(int slot) {
        int streamId = ids[slot];
        writePending(slot);
        if (ids[slot] == streamId && pending[slot] == null && (flags[slot] & (LOCAL_CLOSED | PENDING_END)) == 0) {
            handler.onWritable(slot);
        }
    }

    /** The channel became writable, or the connection window opened: the waiting streams go on. */
    public void writeAllPending() {
        for (int slot = 0; slot < ids.length && !closed; slot++) {
            if (ids[slot] == 0) {
                continue;
            }
            resume(slot);
        }
    }

    private void endLocal(int slot) {
        flags[slot] |= LOCAL_CLOSED;
        flags[slot] &= ~PENDING_END;
        blockedSince[slot] = 0;
        if ((flags[slot] & REMOTE_CLOSED) != 0) {
            free(slot, -1);
        } else if ((flags[slot] & RESET_WHEN_DONE) != 0) {
            writeRst(ids[slot], Http2ErrorCodes.NO_ERROR); // the response is complete: stop sending (section 8.1)
            free(slot, Http2ErrorCodes.NO_ERROR);
        }
    }

    private void freeIfDone(int slot) {
        if ((flags[slot] & (LOCAL_CLOSED | REMOTE_CLOSED)) == (LOCAL_CLOSED | REMOTE_CLOSED)) {
            free(slot, -1);
        }
    }

    /**
     * Resets stream {@code slot} with {@code errorCode} (RST_STREAM) and frees it; the handler hears
     * of it through {@link Handler#onStreamClosed} only when {@code notify} (a reset it did not ask for).
     */
    public void resetStream(int slot, int errorCode, boolean notify) {
        int streamId = ids[slot];
        if (streamId == 0) {
            return;
        }
        writeRst(streamId, errorCode);
        if (notify) {
            localReset = true;
            try {
                free(slot, errorCode);
            } finally {
                localReset = false;
            }
        } else {
            release(slot);
        }
    }

    /** Resets stream {@code slot} on the handler's own account: no {@link Handler#onStreamClosed} call. */
    public void resetStream(int slot, int errorCode) {
        resetStream(slot, errorCode, false);
    }

    private void writeRst(int streamId, int errorCode) {
        Http2FrameWriter.rstStream(out(), streamId, errorCode);
        controlFrameWritten();
    }

    private void free(int slot, long errorCode) {
        int streamId = ids[slot];
        release(slot);
        handler.onStreamClosed(slot, streamId, errorCode);
        closeIfIdle();
    }

    private void release(int slot) {
        int h = held[slot];
        ids[slot] = 0;
        flags[slot] = 0;
        held[slot] = 0;
        blockedSince[slot] = 0;
        active--;
        ByteBuf p = pending[slot];
        if (p != null) {
            pending[slot] = null;
            p.release();
        }
        ByteBuf t = pendingTrailers[slot];
        if (t != null) {
            pendingTrailers[slot] = null;
            t.release();
        }
        if (!closed) {
            creditConnection(h);
        }
    }

    /**
     * Resets every stream whose data has waited longer than {@code timeoutNanos} for the peer's
     * windows or socket (CANCEL); returns whether some stream still waits (check again later).
     */
    public boolean sweepSendTimeouts(long now, long timeoutNanos) {
        boolean waiting = false;
        for (int slot = 0; slot < ids.length; slot++) {
            long since = blockedSince[slot];
            if (ids[slot] == 0 || since == 0) {
                continue;
            }
            if (now - since > timeoutNanos) {
                resetStream(slot, Http2ErrorCodes.CANCEL, true);
            } else {
                waiting = true;
            }
        }
        flush();
        return waiting;
    }

    /** A stream's data started waiting outside {@link #writeData} (the handler holds it back): start its clock. */
    public void markBlocked(int slot) {
        if (blockedSince[slot] == 0) {
            blockedSince[slot] = System.nanoTime() | 1;
        }
    }

    /** The peer took bytes for stream {@code slot}: its send clock restarts. */
    public void progress(int slot) {
        if (blockedSince[slot] != 0) {
            blockedSince[slot] = System.nanoTime() | 1;
        }
    }

    // =====================================================================================
    // GOAWAY and closing

    private void goAway(int lastStreamId, int errorCode) {
        if (closed) {
            return;
        }
        goAwaySent = true;
        goAwayLastId = Math.min(goAwayLastId, lastStreamId);
        Http2FrameWriter.goAway(out(), lastStreamId, errorCode);
    }

    /**
     * Ends the connection gracefully (an idle timeout): GOAWAY naming the last stream taken, then
     * the close once the open streams are done (or after {@link Config#gracefulShutdownMillis}).
     */
    public void close(int errorCode) {
        if (closing || closed) {
            return;
        }
        closing = true;
        goAway(highestRemote, errorCode);
        flush();
        scheduleForcedClose();
        closeIfIdle();
    }

    /**
     * A stop's first step (section 6.8): GOAWAY with 2^31-1 and a PING. Requests the client sent
     * before it read the GOAWAY still arrive and are served; the PING's ack (or a second, for a peer
     * that does not ack) shows everything before it arrived, and the final GOAWAY names the last
     * stream taken; the connection closes when its streams are done.
     */
    public void drain() {
        if (draining || closing || closed) {
            return;
        }
        draining = true;
        goAway(Integer.MAX_VALUE, Http2ErrorCodes.NO_ERROR);
        goAwayLastId = Integer.MAX_VALUE;
        Http2FrameWriter.ping(out(), DRAIN_PING, false);
        flush();
        ctx.executor().schedule(new Runnable() { // once per connection, on a stop
            @Override
            public void run() {
                finishDrain();
            }
        }, DRAIN_ACK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void finishDrain() {
        if (!draining || closed) {
            return;
        }
        draining = false;
        goAwayLastId = highestRemote;
        close(Http2ErrorCodes.NO_ERROR);
        if (closing && goAwaySent && out != null) {
            flush();
        }
    }

    /** Whether a stop's drain has started (its first GOAWAY is out). */
    public boolean isDraining() {
        return draining || closing;
    }

    private void scheduleForcedClose() {
        long millis = config.gracefulShutdownMillis();
        ctx.executor().schedule(new Runnable() { // once per connection close
            @Override
            public void run() {
                if (!closed && !handler.keepOpen()) {
                    flush();
                    ctx.close();
                } else if (!closed) {
                    ctx.executor().schedule(this, millis, TimeUnit.MILLISECONDS);
                }
            }
        }, millis, TimeUnit.MILLISECONDS);
    }

    private void closeIfIdle() {
        if (closed || active > 0) {
            return;
        }
        if ((closing && goAwaySent) || (goAwayReceived && config.server())) {
            flush();
            ctx.close();
        }
    }

    /** Whether the connection is closing (GOAWAY sent, the close waits for its streams). */
    public boolean isClosing() {
        return closing;
    }

    /** Whether this is called from inside {@link #read} (the handler flushes at the batch's end then). */
    public boolean isReading() {
        return inRead;
    }
}
