package io.paduraksa.spikes.h1alloc;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Blocking keep-alive client on one socket, one request in flight (pipelining depth 1). Reads each
 * response fully: head up to CR LF CR LF, then Content-Length bytes of body. Runs on a plain thread, so
 * its allocations never show in the event-loop thread's counter.
 */
final class LoadClient implements AutoCloseable {

    private static final byte[] CONTENT_LENGTH =
            "content-length:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;
    long responses;

    LoadClient(int port) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(Integer.getInteger("spike.readTimeoutMs", 3_000));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Sends {@code count} requests, cycling through {@code heads} from {@code firstIndex}. */
    void run(byte[][] heads, long firstIndex, long count) throws IOException {
        for (long i = 0; i < count; i++) {
            out.write(heads[(int) ((firstIndex + i) % heads.length)]);
            out.flush();
            readResponse();
            responses++;
        }
    }

    private void readResponse() throws IOException {
        int headEnd;
        while ((headEnd = findHeadEnd()) < 0) {
            fill();
        }
        int contentLength = contentLength(pos, headEnd);
        int need = headEnd + contentLength;
        while (limit < need) {
            fill();
        }
        pos = need;
        if (pos == limit) {
            pos = 0;
            limit = 0;
        }
    }

    /** Index just past CR LF CR LF in buf[pos, limit), or -1. */
    private int findHeadEnd() {
        for (int i = pos; i + 3 < limit; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                return i + 4;
            }
        }
        return -1;
    }

    private int contentLength(int from, int to) throws IOException {
        byte[] name = CONTENT_LENGTH;
        outer:
        for (int i = from; i + name.length < to; i++) {
            if (i != from && buf[i - 1] != '\n') {
                continue;
            }
            for (int k = 0; k < name.length; k++) {
                if ((buf[i + k] | 0x20) != (name[k] | 0x20)) {
                    continue outer;
                }
            }
            int v = 0;
            int j = i + name.length;
            while (buf[j] == ' ') {
                j++;
            }
            while (buf[j] >= '0' && buf[j] <= '9') {
                v = v * 10 + (buf[j] - '0');
                j++;
            }
            return v;
        }
        throw new IOException("response without content-length");
    }

    private void fill() throws IOException {
        if (limit == buf.length) {
            throw new IOException("response larger than client buffer");
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            throw new EOFException("server closed the connection");
        }
        limit += n;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
