package io.paduraksa.spikes.h1alloc;

import java.nio.charset.StandardCharsets;

/**
 * Request heads the load client sends, built once before the run. The client cycles through them by
 * index, so it sends the same bytes in the same order on every run.
 */
final class Traffic {

    private Traffic() {
    }

    /** {@code GET /x} with Host and User-Agent only: one request repeated. */
    static byte[][] minimal() {
        String head = "GET /x HTTP/1.1\r\n"
                + "Host: www.example.test\r\n"
                + "User-Agent: spike-client/1.0\r\n"
                + "\r\n";
        return new byte[][] {head.getBytes(StandardCharsets.US_ASCII)};
    }

    private static final String[] ACCEPT = {
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
                + "application/signed-exchange;v=b3;q=0.7",
        "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
        "text/css,*/*;q=0.1",
    };

    private static final String[] SECTIONS = {"shop", "blog", "docs", "account"};
    private static final String[] ITEMS = {"list", "item", "search", "view"};

    /**
     * Chrome-like requests: 64 paths with query strings, Accept varying over 3 values and Referer over
     * the 64 paths, so the sequence repeats every 192 requests. Header lines per request: Host, sec-ch-ua,
     * sec-ch-ua-mobile, sec-ch-ua-platform, User-Agent, Accept, Sec-Fetch-Site, Sec-Fetch-Mode,
     * Sec-Fetch-User, Sec-Fetch-Dest, Referer, Accept-Encoding, Accept-Language, Cookie, Priority (15 lines:
     * 13 headers every Chrome request carries here, plus Cookie and Referer). Names are in the case Chrome
     * sends over HTTP/1.1.
     */
    static byte[][] browser() {
        String[] paths = new String[64];
        for (int i = 0; i < paths.length; i++) {
            paths[i] = "/" + SECTIONS[i % 4] + "/" + ITEMS[(i / 4) % 4] + "/" + (1000 + i * 37)
                    + "?ref=home&page=" + (i % 7) + "&utm_source=spike&id=" + Integer.toHexString(0x5eed00 + i * 131);
        }
        byte[][] out = new byte[192][];
        for (int i = 0; i < out.length; i++) {
            String head = "GET " + paths[i % 64] + " HTTP/1.1\r\n"
                    + "Host: www.example.test\r\n"
                    + "sec-ch-ua: \"Google Chrome\";v=\"131\", \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"\r\n"
                    + "sec-ch-ua-mobile: ?0\r\n"
                    + "sec-ch-ua-platform: \"Windows\"\r\n"
                    + "User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
                    + " Chrome/131.0.0.0 Safari/537.36\r\n"
                    + "Accept: " + ACCEPT[i % 3] + "\r\n"
                    + "Sec-Fetch-Site: same-origin\r\n"
                    + "Sec-Fetch-Mode: navigate\r\n"
                    + "Sec-Fetch-User: ?1\r\n"
                    + "Sec-Fetch-Dest: document\r\n"
                    + "Referer: https://www.example.test" + paths[(i * 5 + 17) % 64] + "\r\n"
                    + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
                    + "Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n"
                    + "Cookie: session=9f3c2a7be1d84f06a5c3e2d1b0a99887; theme=dark; consent=1; _ga=GA1.1.123456789.1700000000\r\n"
                    + "Priority: u=0, i\r\n"
                    + "\r\n";
            out[i] = head.getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }
}
