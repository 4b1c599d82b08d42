package io.paduraksa.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import io.paduraksa.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof-of-work challenge through the real server: raw clients (non-browser refusal, the
 * page, a proof solved in the test, the cookie) and, when Debian's chromium is installed, a real
 * headless browser that loads the page, solves it, gets the cookie and sees the site.
 */
class ChallengeIT {
    static final String YAML = """
            listeners:
              - {name: web, address: "127.0.0.1:0", protocols: [http1, h2c]}
            policies:
              pow:
                type: challenge
                difficulty: 8
                ttl: 10m
                keys: [{id: k2, secret: "second key for the challenge IT, 32+ bytes"}, {id: k1, secret: "first key for the challenge IT, 32+ bytes!"}]
              pow-admin:
                type: challenge
                difficulty: 8
                keys: [{id: k2, secret: "second key for the challenge IT, 32+ bytes"}]
            hosts:
              - names: [app.test]
                policies: [pow]
                routes:
                  - {path: /, respond: {status: 200, content_type: "text/html; charset=utf-8", body: "<!doctype html><title>app</title><p id=w>welcome</p>"}}
              - names: [shop.test]
                policies: [pow]
                routes:
                  - {path: /, respond: {status: 200, body: "shop\\n"}}
              - names: [admin.test]
                policies: [pow-admin]
                routes:
                  - {path: /, respond: {status: 200, body: "admin\\n"}}
            """;
    private static final Pattern TOKEN = Pattern.compile("var T = \"([^\"]+)\", D = (\\d+)");

    static TestServer server;
    static int port;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
        port = server.port("web");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static RawHttp.Response get(String target, String... headers) throws IOException {
        return getAt("app.test", target, headers);
    }

    static RawHttp.Response getAt(String host, String target, String... headers) throws IOException {
        try (RawHttp http = new RawHttp(port)) {
            StringBuilder req = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n");
            for (String h : headers) {
                req.append(h).append("\r\n");
            }
            return http.send(req.append("Connection: close\r\n\r\n").toString()).read();
        }
    }

    @Test
    void aClientThatCannotRunThePageGetsA403SayingWhy() throws IOException {
        RawHttp.Response r = get("/", "User-Agent: curl/8.5.0", "Accept: */*");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.body()).contains("browser").doesNotContain("<script");
    }

    @Test
    void aBrowserGetsThePageThenItsProofEarnsACookieThatPasses() throws Exception {
        RawHttp.Response page = get("/shop?x=1", "Accept: text/html");
        assertThat(page.status()).isEqualTo(403);
        assertThat(page.header("content-type")).startsWith("text/html");
        assertThat(page.header("cache-control")).isEqualTo("no-store");
        Matcher m = TOKEN.matcher(page.body());
        assertThat(m.find()).isTrue();
        String token = m.group(1);
        assertThat(token).startsWith("k2.");
        String proof = token + "." + solve(token, Integer.parseInt(m.group(2)));

        RawHttp.Response redirect = get("/shop?x=1&__pdk_proof=" + proof, "Accept: text/html");
        assertThat(redirect.status()).isEqualTo(302);
        assertThat(redirect.header("location")).isEqualTo("/shop?x=1");
        String setCookie = redirect.header("set-cookie");
        assertThat(setCookie).startsWith("pdk_clearance=1.k2.").contains("HttpOnly", "SameSite=Lax", "Max-Age=600");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));

        RawHttp.Response welcome = get("/shop?x=1", "Accept: text/html", "Cookie: " + cookie);
        assertThat(welcome.status()).isEqualTo(200);
        assertThat(welcome.body()).contains("welcome");
        assertThat(get("/", "Cookie: " + cookie).status()).as("the cookie passes non-browsers too").isEqualTo(200);

        String forged = cookie.substring(0, cookie.length() - 1) + (cookie.endsWith("0") ? "1" : "0");
        assertThat(get("/", "Accept: text/html", "Cookie: " + forged).status()).isEqualTo(403);
        assertThat(get("/?__pdk_proof=" + token + ".1x", "Accept: text/html").status()).isEqualTo(403);
    }

    private static final AtomicLong NONCE_START = new AtomicLong(1_000_000);

    /**
     * Solves the page's challenge for {@code target} at {@code host}; returns the proof.
     */
    static String proofFor(String host, String target) throws Exception {
        Matcher m = TOKEN.matcher(getAt(host, target, "Accept: text/html").body());
        assertThat(m.find()).isTrue();
        return m.group(1) + "." + solve(m.group(1), Integer.parseInt(m.group(2)));
    }

    static String cookieOf(RawHttp.Response redirect) {
        assertThat(redirect.status()).isEqualTo(302);
        String setCookie = redirect.header("set-cookie");
        return setCookie.substring(0, setCookie.indexOf(';'));
    }

    @Test
    void aCookieIsValidOnlyAtThePolicyAndHostThatIssuedIt() throws Exception {
        String cookie = cookieOf(get("/?__pdk_proof=" + proofFor("app.test", "/"), "Accept: text/html"));
        assertThat(getAt("APP.test:443", "/", "Cookie: " + cookie).status()).as("same host, other spelling").isEqualTo(200);
        assertThat(getAt("shop.test", "/", "Accept: text/html", "Cookie: " + cookie).status())
                .as("same policy, other host (bind_host)").isEqualTo(403);
        assertThat(getAt("admin.test", "/", "Accept: text/html", "Cookie: " + cookie).status())
                .as("another policy with the same key and cookie name").isEqualTo(403);
        String adminCookie = cookieOf(getAt("admin.test", "/?__pdk_proof=" + proofFor("admin.test", "/"), "Accept: text/html"));
        assertThat(getAt("admin.test", "/", "Cookie: " + adminCookie).body()).isEqualTo("admin\n");
        assertThat(get("/", "Accept: text/html", "Cookie: " + adminCookie).status()).isEqualTo(403);
    }

    @Test
    void aProofIsRedeemedOnceAndOnlyAtItsPolicy() throws Exception {
        String proof = proofFor("app.test", "/");
        assertThat(getAt("admin.test", "/?__pdk_proof=" + proof, "Accept: text/html").status())
                .as("solved for another policy").isEqualTo(403);
        assertThat(get("/a?__pdk_proof=" + proof, "Accept: text/html").status()).isEqualTo(302);
        assertThat(get("/a?__pdk_proof=" + proof, "Accept: text/html").status()).as("replayed").isEqualTo(403);
        assertThat(getAt("shop.test", "/b?__pdk_proof=" + proof, "Accept: text/html").status())
                .as("replayed at another host of the policy").isEqualTo(403);
    }

    @Test
    void aRedirectNeverLeavesTheOrigin() throws Exception {
        Matcher m = TOKEN.matcher(get("/", "Accept: text/html").body());
        assertThat(m.find()).isTrue();
        String proof = m.group(1) + "." + solve(m.group(1), Integer.parseInt(m.group(2)));
        RawHttp.Response r = get("//evil.example/?__pdk_proof=" + proof, "Accept: text/html");
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("location")).isEqualTo("/");
    }

    /**
     * The same search the page's script does: SHA-256 of token.nonce with enough leading zero bits.
     * Tokens issued to one address in one second are equal and a proof is redeemed once, so each
     * search starts at its own nonce, a million apart and above where the browser's search (from 0)
     * ends: two tests never find the same proof.
     */
    static long solve(String token, int difficulty) throws Exception {
        return solve(token, difficulty, NONCE_START.getAndAdd(1_000_000));
    }

    static long solve(String token, int difficulty, long start) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (long n = start; ; n++) {
            byte[] d = sha.digest((token + "." + n).getBytes(StandardCharsets.US_ASCII));
            int first = ((d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
            if (first >>> (32 - difficulty) == 0) {
                return n;
            }
        }
    }

    @Test
    void aHeadlessChromiumSolvesTheChallengeAndSeesTheSite(@TempDir Path profile) throws Exception {
        Path chromium = io.paduraksa.testing.Tools.require("Debian's chromium", "chromium", "/usr/bin/chromium");
        List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
                "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,HttpsFirstModeV2ForTypicallySecureUsers",
                "--host-resolver-rules=MAP app.test 127.0.0.1", "--virtual-time-budget=10000", "--dump-dom",
                "http://app.test:" + port + "/shop?x=1"));
        Process p = new ProcessBuilder(command).redirectError(profile.resolve("stderr.txt").toFile()).start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        } finally {
            Tools.stop(p);
        }
        String dom = new String(out, StandardCharsets.UTF_8);
        assertThat(dom).as("final DOM (stderr: %s)", Files.readString(profile.resolve("stderr.txt"))).contains("welcome")
                .doesNotContain("One moment");
    }
}
