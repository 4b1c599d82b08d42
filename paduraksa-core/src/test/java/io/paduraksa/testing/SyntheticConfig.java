package io.paduraksa.testing;

import java.util.Random;

/**
 * The benchmark and test shape of the gate aim (docs/benchmarks.md#aim-gate-sync): 520 hosts (500 exact names, 10 of them IDN, and 20
 * wildcards), every host with 3 policies (an IP deny list of 2,000 CIDRs, 30
 * user-agent needles, a path deny list) and the routes {@code /static} (200), {@code /old} (301),
 * {@code /admin} (403 through the path policy) and {@code /} (forwarded). Generated as YAML text so
 * that it goes through the same loader and compiler as an operator's file.
 */
public final class SyntheticConfig {
    public static final int EXACT_HOSTS = 500;
    public static final int IDN_HOSTS = 10;
    public static final int WILDCARD_HOSTS = 20;
    public static final int DENY_CIDRS = 2_000;

    /** 30 scanner and bot needles, as operators deny them. */
    public static final String[] USER_AGENT_NEEDLES = {
        "sqlmap", "nikto", "masscan", "zgrab", "nuclei", "nmap", "dirbuster", "gobuster", "wpscan", "acunetix",
        "netsparker", "havij", "w3af", "openvas", "nessus", "arachni", "skipfish", "wfuzz", "ffuf", "feroxbuster",
        "httrack", "python-requests", "go-http-client", "libwww-perl", "zmeu", "morfeus", "jorgee", "censys",
        "petalbot", "semrushbot",
    };

    private SyntheticConfig() {
    }

    /** The name of exact host {@code i} (0-499); hosts 490-499 are IDN names written in Unicode. */
    public static String exactHost(int i) {
        return i >= EXACT_HOSTS - IDN_HOSTS ? "bücher" + i + ".test" : "h" + i + ".test";
    }

    /** A name under wildcard host {@code i} (0-19): {@code *.w{i}.test}. */
    public static String wildcardParent(int i) {
        return "w" + i + ".test";
    }

    /** The YAML text of the whole configuration. */
    public static String yaml() {
        StringBuilder y = new StringBuilder(256 * 1024);
        y.append("client_ip:\n  trusted_proxies: [198.51.100.0/24, \"2001:db8:ffff::/48\"]\n");
        y.append("clusters:\n  app:\n    destinations: [{url: \"http://127.0.0.1:9001\"}]\n");
        y.append("policies:\n");
        y.append("  deny-list:\n    type: ip\n    deny:\n");
        Random random = new Random(2_000);
        for (int i = 0; i < DENY_CIDRS; i++) {
            if (i % 2 == 0) {
                // IPv4 /24s spread over 10.0.0.0/8 and 100.64.0.0/10; the documentation ranges stay clear.
                int net = (i % 4 == 0 ? 10 << 24 : (100 << 24) | (64 << 16)) | (random.nextInt(1 << 14) << 8);
                y.append("      - ").append(net >>> 24).append('.').append((net >>> 16) & 0xFF).append('.').append((net >>> 8) & 0xFF)
                        .append(".0/24\n");
            } else {
                y.append("      - \"2001:db8:").append(Integer.toHexString(1 + random.nextInt(0xFFFE))).append("::/48\"\n");
            }
        }
        y.append("  bad-bots:\n    type: user_agent\n    deny: [");
        for (int i = 0; i < USER_AGENT_NEEDLES.length; i++) {
            y.append(i == 0 ? "" : ", ").append(USER_AGENT_NEEDLES[i]);
        }
        y.append("]\n");
        y.append("  no-admin:\n    type: path\n    deny: [/admin]\n");
        y.append("hosts:\n");
        for (int i = 0; i < EXACT_HOSTS; i++) {
            host(y, "\"" + exactHost(i) + "\"");
        }
        for (int i = 0; i < WILDCARD_HOSTS; i++) {
            host(y, "\"*." + wildcardParent(i) + "\"");
        }
        y.append("default:\n  respond: {status: 421}\n");
        return y.toString();
    }

    private static void host(StringBuilder y, String name) {
        y.append("  - names: [").append(name).append("]\n");
        y.append("    policies: [deny-list, bad-bots, no-admin]\n");
        y.append("    routes:\n");
        y.append("      - {path: /static, respond: {status: 200, body: \"static\\n\"}}\n");
        y.append("      - {path: /old, redirect: {location: \"https://example.test/new\", status: 301}}\n");
        y.append("      - {path: /, forward: app}\n");
    }
}
