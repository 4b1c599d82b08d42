package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Independent HTTP/2 clients against our own codec on h2c (prior knowledge): curl (libcurl with
 * nghttp2), nghttp, h2load at two shapes, and Python's {@code h2} (hyper-h2, a different code base
 * than nghttp2). Each client judges our frames by its own rules; a protocol slip on our side shows
 * as an error or a failed request. Skipped where a client is not installed (failed in CI, which installs them).
 */
class Http2RealClientsIT {
    static final String YAML = """
            listeners:
              - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /big, respond: {status: 200, body: "%s"}}
                  - {path: /, respond: {status: 200, body: "ok\\n"}}
            default: {respond: {status: 200, body: "default\\n"}}
            """.formatted("z".repeat(200_000));

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.port("h2") + path;
    }

    @Test
    void curlWithPriorKnowledgeGetsTheAnswerAndABodyLargerThanTheWindows() throws Exception {
        // one URL per run: curl 7.88 fails (exit 16) re-using a prior-knowledge connection for a second
        // URL, against nginx too (checked by hand), so it is curl's
        String small = run("curl", "-s", "--http2-prior-knowledge", "-H", "Host: a.test",
                "-w", "\\n%{http_code} %{http_version} %{size_download}", url("/"));
        assertThat(small).isEqualTo("ok\n\n200 2 3");
        String big = run("curl", "-s", "--http2-prior-knowledge", "-H", "Host: a.test", "-o", "/dev/null",
                "-w", "%{http_code} %{http_version} %{size_download}", url("/big"));
        assertThat(big).isEqualTo("200 2 200000");
    }

    @Test
    void nghttpSeesValidFramesAndStatus() throws Exception {
        String out = run("nghttp", "-nv", "-H", ":authority: a.test", url("/"), url("/big"), url("/x"));
        assertThat(out).contains(":status: 200").doesNotContain("PROTOCOL_ERROR").doesNotContain("COMPRESSION_ERROR")
                .doesNotContain("FLOW_CONTROL_ERROR");
        assertThat(out.split("recv DATA frame", -1).length).as("DATA frames received").isGreaterThan(10);
    }

    @Test
    void h2loadAtTwoShapesSucceedsForEveryRequest() throws Exception {
        for (String[] shape : new String[][] {{"4", "16"}, {"8", "8"}}) {
            String out = run("h2load", "-n", "20000", "-c", shape[0], "-m", shape[1], "-H", ":authority: a.test", url("/"));
            assertThat(out).as("h2load -c %s -m %s", shape[0], shape[1])
                    .contains("20000 succeeded, 0 failed, 0 errored").contains("status codes: 20000 2xx");
        }
    }

    @Test
    void pythonH2GetsTheAnswerOverManyStreams() throws Exception {
        String script = """
                import socket, sys, h2.connection, h2.config, h2.events
                s = socket.create_connection(("127.0.0.1", %d))
                c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
                c.initiate_connection(); s.sendall(c.data_to_send())
                ids = []
                for i in range(50):
                    sid = c.get_next_available_stream_id()
                    c.send_headers(sid, [(":method", "GET"), (":scheme", "http"), (":authority", "a.test"), (":path", "/p%%d" %% i)], end_stream=True)
                    ids.append(sid)
                big = c.get_next_available_stream_id()
                c.send_headers(big, [(":method", "GET"), (":scheme", "http"), (":authority", "a.test"), (":path", "/big")], end_stream=True)
                s.sendall(c.data_to_send())
                status, body, ended = {}, {}, set()
                while len(ended) < 51:
                    data = s.recv(65536)
                    if not data:
                        break
                    for e in c.receive_data(data):
                        if isinstance(e, h2.events.ResponseReceived):
                            status[e.stream_id] = dict(e.headers)[b":status"]
                        elif isinstance(e, h2.events.DataReceived):
                            body[e.stream_id] = body.get(e.stream_id, 0) + len(e.data)
                            c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                        elif isinstance(e, h2.events.StreamEnded):
                            ended.add(e.stream_id)
                        elif isinstance(e, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                            print("error", e); sys.exit(1)
                    s.sendall(c.data_to_send())
                ok = sum(1 for i in ids if status.get(i) == b"200" and body.get(i) == 3)
                print("ok", ok, "big", body.get(big))
                """.formatted(server.port("h2"));
        Path file = Files.createTempFile("h2client", ".py");
        try {
            Files.writeString(file, script);
            String out = run("/usr/bin/python3", file.toString());
            assertThat(out.strip()).isEqualTo("ok 50 big 200000");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Debian's package for each client this test runs. */
    static final Map<String, String> PACKAGES = Map.of("curl", "curl", "nghttp", "nghttp2-client", "h2load", "nghttp2-client",
            "/usr/bin/python3", "python3-h2");

    /**
     * Runs a client and returns its output (stdout and stderr). A client that is not installed skips
     * the test ({@link Tools}: fails it in CI); so does Python without its {@code h2} module.
     */
    static String run(String... command) throws IOException, InterruptedException {
        String tool = command[0];
        Tools.require(tool, PACKAGES.get(tool), tool.startsWith("/") ? tool : "/usr/bin/" + tool);
        if (tool.equals("/usr/bin/python3")) {
            Process probe = new ProcessBuilder(tool, "-c", "import h2").redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            Tools.require(probe.waitFor() == 0, "Python's h2 module is not installed (apt-get install python3-h2)");
        }
        Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s exit code; output:%n%s", command[0], text).isZero();
        return text;
    }
}
