package io.paduraksa.bench.cache;

import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.ops.Reloader;
import io.paduraksa.server.EdgeServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A cache hit next to a gate answer over real loopback connections: the server in this process
 * (one event loop, epoll), one keep-alive HTTP/1.1 connection per kind, requests pipelined 16 at a
 * time, and the event loop's own CPU time per request (decoding, gate, cache, writes, and the
 * socket syscalls), in interleaved rounds so that a loaded machine affects both alike. The client
 * runs on this process's other threads and is not counted. Only the first request of each of the
 * 64 URLs reaches the stand-in origin.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
 * -Dio.netty.leakDetection.level=disabled -cp paduraksa-bench/target/benchmarks.jar
 * io.paduraksa.bench.cache.CacheHitLoopback [ROUNDS [PER_ROUND [PIPELINE [SHAPE [same-fields]]]]]}: 21 rounds of
 * 20,000, 16 pipelined, {@code browser} (five fields, a Chrome User-Agent and a cookie) by default;
 * {@code minimal} is the end-to-end harness's minimal request (Host and {@code User-Agent: wrk}, one
 * URL), and {@code PIPELINE} 1 sends one request per write as wrk does (a wake-up, a read and a
 * write per request: the kernel's share grows). {@code same-fields} gives the gate answer the hit's
 * fields too (Cache-Control and an {@code Age: 0}), so that both write the same bytes and what is
 * left between them is the forwarding glue and the cache's lookup.
 */
public final class CacheHitLoopback {
    static {
        BenchFixtures.leakDetectionOff();
    }

    private static final int URLS = 64;
    private static final byte[] ORIGIN_ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: max-age=86400\r\n"
            + "Content-Length: 16\r\n\r\n0123456789abcdef").getBytes(StandardCharsets.US_ASCII);

    private CacheHitLoopback() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int pipeline = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        boolean minimal = args.length > 3 && args[3].equals("minimal");
        String answerFields = args.length > 4 && args[4].equals("same-fields") ? ", cache_control: max-age=86400, headers: {Age: \"0\"}" : "";
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread o = new Thread(() -> serveOrigin(origin), "stand-in-origin");
            o.setDaemon(true);
            o.start();
            Path dir = Files.createTempDirectory("cache-loopback");
            Path file = dir.resolve("paduraksa.yaml");
            Files.writeString(file, """
                    listeners:
                      - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                    server: {threads: 1, transport: epoll}
                    clusters:
                      app: {destinations: [{url: "http://127.0.0.1:%d"}]}
                    hosts:
                      - names: [a.test]
                        routes:
                          - {path: /answer, respond: {status: 200, content_type: text/plain, body: "0123456789abcdef"%s}}
                          - {path: /cached, forward: app, cache: {}}
                    """.formatted(origin.getLocalPort(), answerFields));
            EdgeServer server = EdgeServer.start(file, Reloader.compile(file));
            try {
                run(server.boundAddresses().get("public").getPort(), rounds, perRound, pipeline, minimal);
            } finally {
                server.stop(Duration.ZERO);
            }
        }
    }

    private static void run(int port, int rounds, int perRound, int pipeline, boolean minimal) throws Exception {
        long loop = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("multiThreadIoEventLoopGroup-")).mapToLong(Thread::threadId).findFirst().orElseThrow();
        try (Client answer = new Client(port, "/answer", pipeline, minimal); Client hit = new Client(port, "/cached", pipeline, minimal)) {
            for (int i = 0; i < 200_000 / pipeline; i++) {
                answer.batch();
                hit.batch();
            }
            System.out.println("event-loop CPU per request over loopback, " + (minimal ? "minimal" : "browser") + " request, pipelined "
                    + pipeline + ", " + answer.lastLength + " and " + hit.lastLength + " bytes a response: "
                    + InterleavedRounds.measure(loop, rounds, perRound, n -> batches(answer, n), n -> batches(hit, n)));
        }
    }

    private static void batches(Client c, int requests) throws IOException {
        for (int i = 0; i < requests / c.pipeline; i++) {
            c.batch();
        }
    }

    /** One keep-alive connection sending batches of {@code pipeline} requests over {@link #URLS} URLs (one URL if minimal). */
    private static final class Client implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final int pipeline;
        private final byte[][] batches;
        private final byte[] buffer = new byte[1 << 16];
        private int next;
        private int filled;
        private int position;
        /** Bytes of the last response read, head and body. */
        private int lastLength;

        Client(int port, String path, int pipeline, boolean minimal) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
            this.pipeline = pipeline;
            batches = new byte[Math.max(1, URLS * 4 / pipeline)][];
            int n = 0;
            for (int b = 0; b < batches.length; b++) {
                ByteArrayOutputStream batch = new ByteArrayOutputStream();
                for (int i = 0; i < pipeline; i++, n++) {
                    String request = minimal ? "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nUser-Agent: wrk\r\n\r\n"
                            : "GET " + path + "/app.js?v=" + (n % URLS) + " HTTP/1.1\r\nHost: a.test\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)"
                            + " Chrome/131.0.0.0\r\nAccept: */*\r\nAccept-Encoding: gzip, br\r\nCookie: session=abc123\r\n\r\n";
                    batch.writeBytes(request.getBytes(StandardCharsets.US_ASCII));
                }
                batches[b] = batch.toByteArray();
            }
        }

        void batch() throws IOException {
            out.write(batches[next++ % batches.length]);
            out.flush();
            for (int i = 0; i < pipeline; i++) {
                readResponse();
            }
        }

        /** Reads one response: its head up to the blank line, then Content-Length bytes; fails on anything but 200. */
        private void readResponse() throws IOException {
            int headEnd;
            while ((headEnd = find()) < 0) {
                fill();
            }
            int headLength = headEnd + 4 - position;
            String head = new String(buffer, position, headEnd - position, StandardCharsets.US_ASCII) + "\r\n";
            if (!head.startsWith("HTTP/1.1 200 ")) {
                throw new IOException("unexpected answer: " + head);
            }
            int cl = head.indexOf("Content-Length: ");
            if (cl < 0) {
                throw new IOException("no Content-Length in: " + head);
            }
            int length = Integer.parseInt(head.substring(cl + 16, head.indexOf('\r', cl)));
            position = headEnd + 4;
            while (filled - position < length) {
                fill();
            }
            position += length;
            lastLength = headLength + length;
        }

        private int find() {
            for (int i = position; i + 3 < filled; i++) {
                if (buffer[i] == '\r' && buffer[i + 1] == '\n' && buffer[i + 2] == '\r' && buffer[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private void fill() throws IOException {
            if (position > 0) {
                System.arraycopy(buffer, position, buffer, 0, filled - position);
                filled -= position;
                position = 0;
            }
            int n = in.read(buffer, filled, buffer.length - filled);
            if (n < 0) {
                throw new IOException("closed");
            }
            filled += n;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static void serveOrigin(ServerSocket origin) {
        while (!origin.isClosed()) {
            try {
                Socket s = origin.accept();
                Thread t = new Thread(() -> answer(s), "stand-in-origin-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Answers every request head on {@code s} with the storable response, until the connection closes. */
    private static void answer(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            int state = 0;
            for (int b = in.read(); b >= 0; b = in.read()) {
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
                if (state == 4) {
                    out.write(ORIGIN_ANSWER);
                    out.flush();
                    state = 0;
                }
            }
        } catch (IOException e) {
            // the server closed the connection
        }
    }
}
