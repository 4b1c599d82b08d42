package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every request stream gets its answer: 4 QUIC connections x 50 concurrent streams, round after
 * round, gate-answered and forwarded to an HTTP/1.1 upstream (with and without a request body, a
 * body ending with an empty DATA frame before the FIN, and responses larger than one stream
 * window), each stream with a deadline. A stream that does not end with its whole answer is
 * reported with its id and state. A previous HTTP/3 attempt lost about one stream in 40,000 under
 * load; this test is the guard (rounds: {@code -Dh3.load.rounds}, default 10: 2,000 streams; the FIN bug it guards against broke 258 streams in 30 rounds, about 86 per 10).
 */
class Http3LoadIT {
    static TestOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.start("""
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h2, h3]
                    tls:
                      certificates:
                        - {cert: "%s", key: "%s"}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /fixed, forward: app}
                      - {path: /big, forward: app}
                      - {path: /echo, forward: app}
                      - {path: /, respond: {status: 200, body: "hello h3\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void everyStreamOfEveryRoundIsAnswered() throws Exception {
        int rounds = Integer.getInteger("h3.load.rounds", 10);
        int connections = 4;
        int perConnection = 50;
        EventLoopGroup group = H3Client.clientGroup(2);
        List<H3Client> clients = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        long answered = 0;
        try {
            for (int c = 0; c < connections; c++) {
                clients.add(H3Client.connect(server.port("tls"), "a.test", group));
            }
            for (int round = 0; round < rounds; round++) {
                List<H3Client.Response> inFlight = new ArrayList<>();
                List<String> expected = new ArrayList<>();
                for (int c = 0; c < connections; c++) {
                    for (int s = 0; s < perConnection; s++) {
                        int kind = (round + c + s) % 5;
                        H3Client client = clients.get(c);
                        switch (kind) {
                            case 0, 1 -> {
                                inFlight.add(client.send("GET", "a.test", "/"));
                                expected.add("answer");
                            }
                            case 2 -> {
                                inFlight.add(client.send("GET", "a.test", "/fixed"));
                                expected.add("fixed");
                            }
                            case 3 -> {
                                inFlight.add(client.send(H3Client.headers("POST", "a.test", "/echo"),
                                        s % 2 == 0 ? new byte[0] : "x".repeat(1000).getBytes()));
                                expected.add(s % 2 == 0 ? "echo0" : "echo1000");
                            }
                            default -> {
                                H3Client.Response r = client.send("GET", "a.test", "/big/300000");
                                r.keepBody = false;
                                inFlight.add(r);
                                expected.add("big");
                            }
                        }
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; i < inFlight.size(); i++) {
                    H3Client.Response r = inFlight.get(i);
                    long left = Math.max(1, deadline - System.nanoTime());
                    try {
                        r.done.get(left, TimeUnit.NANOSECONDS);
                    } catch (java.util.concurrent.TimeoutException e) {
                        // reported below
                    }
                    String problem = check(r, expected.get(i));
                    if (problem == null) {
                        answered++;
                    } else {
                        stuck.add("round " + round + " connection " + (i / perConnection) + " " + expected.get(i) + ": " + problem + " (" + r + ")");
                    }
                }
                if (stuck.size() > 20) {
                    break;
                }
            }
        } finally {
            for (H3Client c : clients) {
                c.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        assertThat(stuck).as("streams without their whole answer, of %d answered", answered).isEmpty();
        assertThat(answered).isEqualTo((long) rounds * connections * perConnection);
    }

    /** Null when the stream ended with the answer its kind expects, else what is wrong. */
    private static String check(H3Client.Response r, String kind) {
        if (!r.done.isDone()) {
            return "no end by the deadline";
        }
        if (!r.end.equals("fin")) {
            return "ended by " + r.end;
        }
        if (r.status != 200) {
            return "status " + r.status;
        }
        return switch (kind) {
            case "answer" -> r.body().equals("hello h3\n") ? null : "body " + r.body();
            case "fixed" -> r.body().equals("0123456789abcdef") ? null : "body " + r.body();
            case "echo0" -> r.body().contains("body-bytes: 0\n") ? null : "body " + r.body();
            case "echo1000" -> r.body().contains("body-bytes: 1000\n") ? null : "body " + r.body();
            default -> r.bodyBytes == 300000 ? null : "body bytes " + r.bodyBytes;
        };
    }
}
