package io.paduraksa.http2;

/** Frame types, flags, settings identifiers and sizes of RFC 9113 sections 4, 6 and 6.5.2. */
public final class Http2Frames {
    public static final int HEADER_LENGTH = 9;

    public static final int DATA = 0x0;
    public static final int HEADERS = 0x1;
    public static final int PRIORITY = 0x2;
    public static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;
    public static final int PUSH_PROMISE = 0x5;
    public static final int PING = 0x6;
    public static final int GOAWAY = 0x7;
    public static final int WINDOW_UPDATE = 0x8;
    public static final int CONTINUATION = 0x9;

    public static final int FLAG_END_STREAM = 0x1;
    public static final int FLAG_ACK = 0x1;
    public static final int FLAG_END_HEADERS = 0x4;
    public static final int FLAG_PADDED = 0x8;
    public static final int FLAG_PRIORITY = 0x20;

    public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    public static final int SETTINGS_ENABLE_PUSH = 0x2;
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    public static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    public static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    /** RFC 8441 section 3. */
    public static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;
    public static final int SETTING_ENTRY_LENGTH = 6;

    /** The initial and smallest SETTINGS_MAX_FRAME_SIZE (RFC 9113 section 4.2). */
    public static final int MIN_MAX_FRAME_SIZE = 1 << 14;
    public static final int MAX_MAX_FRAME_SIZE = (1 << 24) - 1;
    public static final int MAX_WINDOW_SIZE = Integer.MAX_VALUE;
    public static final int DEFAULT_HEADER_TABLE_SIZE = 4096;

    /** The client connection preface (RFC 9113 section 3.4), 24 bytes. */
    public static final byte[] CLIENT_PREFACE = {'P', 'R', 'I', ' ', '*', ' ', 'H', 'T', 'T', 'P', '/', '2', '.', '0',
            '\r', '\n', '\r', '\n', 'S', 'M', '\r', '\n', '\r', '\n'};

    private Http2Frames() {
    }
}
