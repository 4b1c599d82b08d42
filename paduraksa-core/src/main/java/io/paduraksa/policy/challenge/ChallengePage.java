package io.paduraksa.policy.challenge;

/**
 * The challenge page: small HTML with inline JavaScript and no external assets. The script
 * computes SHA-256 itself (Web Crypto's {@code crypto.subtle} exists only in secure contexts, and
 * the page must also work over plain HTTP), searches a nonce whose hash of
 * {@code <token>.<nonce>} starts with the difficulty's zero bits, in slices that keep the page
 * responsive, then reloads the same URL with {@value #PROOF_PARAMETER}{@code =<token>.<nonce>}
 * appended to its query. The server answers that with a redirect to the URL without the parameter
 * and the clearance cookie. Compile time only: the text is built once per policy.
 */
public final class ChallengePage {
    /** The query parameter that carries a proof; always the last one the page appends. */
    public static final String PROOF_PARAMETER = "__pdk_proof";
    /** Where the per-request token goes in the page. */
    public static final String TOKEN_VARIABLE = "${challenge}";

    private ChallengePage() {
    }

    /** The page for {@code difficulty} leading zero bits, with {@link #TOKEN_VARIABLE} once. */
    public static String html(int difficulty) {
        return """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
                <meta name="viewport" content="width=device-width,initial-scale=1"><title>One moment&hellip;</title>
                <style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;color:#222}</style>
                </head><body><h1>One moment&hellip;</h1>
                <p id="status">Your browser is solving a small puzzle to show it is not a bot. This takes a second or two.</p>
                <noscript><p>This site needs JavaScript to let you in. Please enable it and reload.</p></noscript>
                <script>
                (function () {
                  var T = "%s", D = %d, P = "%s";
                  var K = [0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
                    0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,
                    0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,
                    0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,
                    0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
                    0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
                    0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,
                    0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
                  var W = new Array(64);
                  function first32(s) { // SHA-256 of an ASCII string; returns the digest's first 32 bits
                    var n = s.length, words = (((n + 8) >> 6) + 1) * 16, m = new Array(words), i, j;
                    for (i = 0; i < words; i++) m[i] = 0;
                    for (i = 0; i < n; i++) m[i >> 2] |= s.charCodeAt(i) << (24 - (i & 3) * 8);
                    m[n >> 2] |= 0x80 << (24 - (n & 3) * 8);
                    m[words - 1] = n * 8;
                    var H = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
                    for (i = 0; i < words; i += 16) {
                      var a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
                      for (j = 0; j < 64; j++) {
                        if (j < 16) W[j] = m[i + j];
                        else {
                          var x = W[j - 15], y = W[j - 2];
                          W[j] = (((x >>> 7 | x << 25) ^ (x >>> 18 | x << 14) ^ (x >>> 3))
                            + ((y >>> 17 | y << 15) ^ (y >>> 19 | y << 13) ^ (y >>> 10)) + W[j - 7] + W[j - 16]) | 0;
                        }
                        var t1 = (h + ((e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7))
                          + ((e & f) ^ (~e & g)) + K[j] + W[j]) | 0;
                        var t2 = (((a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10))
                          + ((a & b) ^ (a & c) ^ (b & c))) | 0;
                        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
                      }
                      H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
                      H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
                    }
                    return H[0] >>> 0;
                  }
                  var nonce = 0;
                  function solve() {
                    for (var end = nonce + 20000; nonce < end; nonce++) {
                      if (first32(T + "." + nonce) >>> (32 - D) === 0) {
                        var url = location.pathname + location.search;
                        location.replace(url + (location.search ? "&" : "?") + P + "=" + T + "." + nonce);
                        return;
                      }
                    }
                    setTimeout(solve, 0);
                  }
                  solve();
                })();
                </script>
                </body></html>
                """.formatted(TOKEN_VARIABLE, difficulty, PROOF_PARAMETER);
    }
}
