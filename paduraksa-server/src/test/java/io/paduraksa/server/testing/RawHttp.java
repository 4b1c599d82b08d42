package io.paduraksa.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A raw-socket HTTP/1.1 client for tests: writes literal bytes, reads responses framed by
 * Content-Length (the only framing the gate's answers use), and tells when the server closed.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        this.socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** One parsed response; header names are lower-cased, the first value of each kept. */
    public record Response(int status, String statusLine, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    public RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    public Socket socket() {
        return socket;
    }

    /** Reads one response; {@code headRequest} means no body follows despite Content-Length. */
    public Response read(boolean headRequest) throws IOException {
        String head = readHead();
        if (head == null) {
            throw new IOException("connection closed before a response");
        }
        String[] lines = head.split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        int status = Integer.parseInt(lines[0].substring(9, 12));
        if (!headRequest && "chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            return new Response(status, lines[0], headers, readChunked());
        }
        String length = headers.get("content-length");
        int n = headRequest || length == null ? 0 : Integer.parseInt(length);
        byte[] body = in.readNBytes(n);
        if (body.length != n) {
            throw new IOException("body cut short: " + body.length + " of " + n + " bytes");
        }
        return new Response(status, lines[0], headers, new String(body, StandardCharsets.UTF_8));
    }

    public Response read() throws IOException {
        return read(false);
    }

    /** Sends a request and reads its response. */
    public Response exchange(String request) throws IOException {
        send(request);
        return read(request.startsWith("HEAD "));
    }

    /** True when the server closed the connection (EOF or reset) within the socket timeout. */
    public boolean isClosedByServer() {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Everything the server sends until it closes (or the timeout passes). */
    public String readAll() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                bytes.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // return what came
        } catch (IOException e) {
            // reset after the answer: return what came
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }

    /** A chunked body, chunk framing removed; trailer fields are read and dropped. */
    private String readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine();
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailer field
                }
                return body.toString(StandardCharsets.UTF_8);
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new IOException("chunk cut short");
            }
            body.write(chunk);
            readLine();
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                line.write(b);
            }
        }
        if (b < 0) {
            throw new IOException("connection closed inside a chunked body");
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String s = head.toString(StandardCharsets.ISO_8859_1);
        return s.substring(0, s.length() - 4);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
