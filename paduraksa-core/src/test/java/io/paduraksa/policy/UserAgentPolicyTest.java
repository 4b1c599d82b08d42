package io.paduraksa.policy;

import io.paduraksa.testing.BulkText;
import io.paduraksa.testing.SyntheticConfig;
import io.paduraksa.testing.TestPolicyInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UserAgentPolicyTest {

    static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/126.0.0.0 Safari/537.36";
    static final List<String> SCANNERS = List.of("sqlmap", "nikto", "masscan", "zgrab", "curl/", "python-requests",
            "Go-http-client");

    /** The gate's request state, reduced to what this policy reads. */
    static final class Request extends TestPolicyInput {
        Request(CharSequence userAgent) {
            userAgent(userAgent);
        }
    }

    private final UserAgentPolicy policy = new UserAgentPolicy("bad-bots", SCANNERS, false, PolicyDecision.DROP);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "sqlmap/1.7.2#stable (https://sqlmap.org)|DROP",
        "Mozilla/5.00 (Nikto/2.1.6) (Evasions:None) (Test:Port Check)|DROP",
        "masscan/1.3 (https://github.com/robertdavidgraham/masscan)|DROP",
        "Mozilla/5.0 zgrab/0.x|DROP",
        "curl/8.5.0|DROP",
        "CURL/8.5.0|DROP",
        "python-requests/2.31.0|DROP",
        "Go-http-client/1.1|DROP",
        "go-HTTP-client/2.0|DROP",
        "xxsqlmapxx|DROP",
        "sqlma|CONTINUE",
        "curl|CONTINUE",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36|CONTINUE",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)|CONTINUE",
    })
    void deniesWhenANeedleOccurs(String userAgent, String expected) {
        assertThat(policy.evaluate(new Request(userAgent)).toString()).isEqualTo(expected);
        assertThat(policy.evaluate(new Request(new AsciiString(userAgent))).toString()).isEqualTo(expected);
    }

    @Test
    void missingOrEmptyUserAgentIsDeniedOnlyWhenAsked() {
        UserAgentPolicy strict = new UserAgentPolicy("strict", SCANNERS, true, PolicyDecision.DROP);
        assertThat(policy.evaluate(new Request(null))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(policy.evaluate(new Request(""))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(strict.evaluate(new Request(null))).isSameAs(PolicyDecision.DROP);
        assertThat(strict.evaluate(new Request(AsciiString.EMPTY_STRING))).isSameAs(PolicyDecision.DROP);
        assertThat(strict.evaluate(new Request(CHROME))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(strict.evaluate(new Request("nikto"))).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void noNeedlesDeniesNothingButMayStillDenyEmpty() {
        UserAgentPolicy onlyEmpty = new UserAgentPolicy("ua-required", List.of(), true, PolicyDecision.DROP);
        assertThat(onlyEmpty.evaluate(new Request("sqlmap"))).isSameAs(PolicyDecision.CONTINUE);
        assertThat(onlyEmpty.evaluate(new Request(null))).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void overlappingNeedlesAreAllFound() {
        // Classic Aho-Corasick shapes: needles inside needles and shared suffixes, where only failure links find the match.
        UserAgentPolicy p = new UserAgentPolicy("overlap", List.of("he", "she", "his", "hers", "abcd", "bc"), false,
                PolicyDecision.DROP);
        for (String hit : List.of("ushers", "xhe", "xxhis", "abc", "abx bc", "aabcd", "sHe")) {
            assertThat(p.matches(hit)).as(hit).isTrue();
        }
        for (String miss : List.of("hx", "s h e", "ab cd", "hi", "")) {
            assertThat(p.matches(miss)).as(miss).isFalse();
        }
    }

    @Test
    void nonAsciiNeedlesMatchTheirUtf8Bytes() {
        UserAgentPolicy p = new UserAgentPolicy("utf8", List.of("Bötchen"), false, PolicyDecision.DROP);
        String headerBytes = new String("x BÖTCHEN bötchen/1".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(p.matches(headerBytes)).isTrue();
        // Only ASCII letters fold: Ö (C3 96) is not ö (C3 B6).
        String upper = new String("BÖTCHEN".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(p.matches(upper)).isFalse();
        assertThat(p.matches("b\u00f6tchen")).as("a char per byte, not a decoded String").isFalse();
        assertThat(p.matches("b\u0100tchen")).isFalse();
    }

    @Test
    void emptyOrNullNeedlesAreRejected() {
        assertThatThrownBy(() -> new UserAgentPolicy("bots", List.of("sqlmap", ""), false, PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("user_agent policy 'bots': deny[1] is empty (expected a non-empty substring such as 'sqlmap')");
        assertThatThrownBy(() -> new UserAgentPolicy("bots", Arrays.asList("a", null), false, PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deny[1] is empty");
        assertThatThrownBy(() -> new UserAgentPolicy("bots", List.of("a"), false, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void describesItself() {
        assertThat(policy.name()).isEqualTo("bad-bots");
        assertThat(policy.toString()).startsWith("UserAgentPolicy[bad-bots, 7 needles, ").endsWith(" -> DROP]");
    }

    /** Random needles and user agents over a small alphabet (so that matches are common), against a naive search. */
    @Test
    void agreesWithANaiveSearch() {
        char[] alphabet = "aAbBcC/ .-".toCharArray();
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 3_000; round++) {
            List<String> needles = new ArrayList<>();
            for (int k = 1 + random.nextInt(8); k > 0; k--) {
                needles.add(randomString(random, alphabet, 1 + random.nextInt(5)));
            }
            UserAgentPolicy p = new UserAgentPolicy("random", needles, false, PolicyDecision.DROP);
            for (int u = 0; u < 30; u++) {
                String ua = randomString(random, alphabet, random.nextInt(24));
                boolean expected = false;
                for (String needle : needles) {
                    expected |= ua.toLowerCase(Locale.ROOT).contains(needle.toLowerCase(Locale.ROOT));
                }
                if (p.matches(ua) != expected) {
                    assertThat(p.matches(ua)).as("'%s' against %s", ua, needles).isEqualTo(expected);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} in ''{1}'' -> {2}")
    @CsvSource(delimiter = '|', value = {
        // one-byte needles: anywhere, either case, alone or next to longer needles
        "x|x|true", "x|X|true", "x|abcx|true", "x|xabc|true", "x|abc|false", "x,sqlmap|SQLMAP|true",
        "x,sqlmap|sqlma|false", "/|curl/8|true", "/|curl 8|false",
        // two-byte needles: stride 1, first and last pair of the input
        "ab|ab|true", "ab|AB|true", "ab|zab|true", "ab|abz|true", "ab|a b|false", "ab|ba|false", "ab|a|false",
        // needles sharing their first pair, and a needle that is a prefix of another
        "nikto,nimda,nix|xxNIMDA|true", "nikto,nimda,nix|nim|false", "nikto,nimda,nix|nixy|true",
        "nikto,nimda,nix|nikt|false", "sqlmap,sql|xsql|true", "sqlmap,sqlm|sqlma|true",
        // at the very start and end, and the whole input
        "masscan,zgrab|masscan/1.3|true", "masscan,zgrab|Mozilla zgrab|true", "masscan,zgrab|zgrab|true",
        "masscan,zgrab|zgra|false", "masscan,zgrab|asscan|false",
        // overlapping occurrences and self-overlapping needles
        "aab|aaab|true", "abab|ababab|true", "abab|abaab|false", "aaaa|aaa|false", "aaaa|aaaaa|true",
        // a short needle sets the stride for long ones; long needles sampled at every offset
        "go-http-client,ab|x go-HTTP-client|true", "go-http-client,ab|go-http-clien|false",
        "feroxbuster,httrack|..feroxbuster|true", "feroxbuster,httrack|.feroxbuster|true",
        "feroxbuster,httrack|feroxbuste|false", "abcdefghijklmnop|xyzABCDEFGHIJKLMNOP|true",
    })
    void findsNeedlesOfEveryLengthAtEveryPosition(String needles, String userAgent, boolean expected) {
        UserAgentPolicy p = new UserAgentPolicy("shapes", List.of(needles.split(",")), false, PolicyDecision.DROP);
        assertThat(p.matches(userAgent)).as("String").isEqualTo(expected);
        assertThat(p.matches(new AsciiString(userAgent))).as("AsciiString").isEqualTo(expected);
        assertThat(p.matches(offsetAscii("sqlmap", userAgent, "nikto"))).as("AsciiString with an offset").isEqualTo(expected);
    }

    /**
     * Random needle sets (every shortest length from 1 to 10, so every stride and the one-byte path)
     * and user agents over a small alphabet with non-ASCII bytes, every other one with a needle planted
     * at a random position (case flipped, sometimes one byte changed), each as a String, an AsciiString
     * and an AsciiString in the middle of a bigger array, against a naive byte search that folds
     * ASCII letters only.
     */
    @Test
    void agreesWithANaiveByteSearchForEveryStride() {
        char[] needleAlphabet = "aAbBcC/ .\u00e9\u00c9\u00ff".toCharArray();
        // One char per byte, as a header arrives: the UTF-8 bytes of the needles' e-acute (C3 A9),
        // E-acute (C3 89) and y-diaeresis (C3 BF), and a Latin-1 E-acute (C9) that must not fold.
        char[] alphabet = "aAbBcC/ .\u00c3\u00a9\u0089\u00bf\u00c9".toCharArray();
        SplittableRandom random = new SplittableRandom(23);
        for (int round = 0; round < 2_000; round++) {
            int shortest = 1 + round % 10;
            List<String> needles = new ArrayList<>();
            for (int k = 1 + random.nextInt(6); k > 0; k--) {
                needles.add(randomString(random, needleAlphabet, shortest + random.nextInt(3)));
            }
            UserAgentPolicy p = new UserAgentPolicy("random", needles, false, PolicyDecision.DROP);
            for (int u = 0; u < 20; u++) {
                String ua = randomString(random, alphabet, random.nextInt(3 * shortest + 40));
                if (u % 2 == 1) {
                    // A needle (as its UTF-8 bytes, letter case flipped at random, one byte changed in a
                    // third of them) at a random position: every alignment to the stride, found or near miss.
                    char[] planted = utf8AsChars(needles.get(random.nextInt(needles.size()))).toCharArray();
                    for (int k = 0; k < planted.length; k++) {
                        planted[k] = random.nextBoolean() && Character.isLetter(planted[k]) && planted[k] < 0x80
                                ? (char) (planted[k] ^ 0x20) : planted[k];
                    }
                    if (random.nextInt(3) == 0) {
                        planted[random.nextInt(planted.length)] = alphabet[random.nextInt(alphabet.length)];
                    }
                    int at = random.nextInt(ua.length() + 1);
                    ua = ua.substring(0, at) + new String(planted) + ua.substring(at);
                }
                boolean expected = false;
                for (String needle : needles) {
                    expected |= asciiLower(ua).contains(asciiLower(utf8AsChars(needle)));
                }
                if (p.matches(ua) != expected || p.matches(new AsciiString(ua)) != expected
                        || p.matches(offsetAscii("/", ua, "bc")) != expected) {
                    assertThat(new boolean[] {p.matches(ua), p.matches(new AsciiString(ua)), p.matches(offsetAscii("/", ua, "bc"))})
                            .as("'%s' against %s", ua, needles).containsOnly(expected);
                }
            }
        }
    }

    /**
     * The third-byte filter against a naive search on the benchmark's 30 needles (stride 3): 120,000
     * browser-like agents built from real agents' tokens, a third of them with a needle inserted, as
     * sent or mangled (random letter case, one byte dropped or changed: near misses whose pair passes
     * the filter), at the start, the end or anywhere, some with non-ASCII bytes; each as a String, an
     * AsciiString and an AsciiString inside a bigger array. Seeded.
     */
    @Test
    void thirdByteFilterAgreesWithANaiveSearchOnBrowserLikeAgents() {
        List<String> needles = List.of(SyntheticConfig.USER_AGENT_NEEDLES);
        UserAgentPolicy p = new UserAgentPolicy("synthetic", needles, false, PolicyDecision.DROP);
        String[] tokens = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                + "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148 "
                + "[FBAN/FBIOS;FBAV/470.0.0.46.77;FBDV/iPhone15,2;FBLC/en_US] (X11; Linux x86_64; rv:133.0) Gecko/20100101 "
                + "Firefox/133.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) curl/8.5.0 okhttp/4.12.0 "
                + "Version/17.4 (Macintosh; Intel Mac OS X 10_15_7) SamsungBrowser/25.0 OPR/114.0.0.0 \u00c3\u00a9").split(" ");
        SplittableRandom random = new SplittableRandom(1_402);
        int matches = 0;
        for (int round = 0; round < 120_000; round++) {
            StringBuilder ua = new StringBuilder();
            for (int t = random.nextInt(1, 8); t > 0; t--) {
                ua.append(tokens[random.nextInt(tokens.length)]).append(random.nextInt(4) == 0 ? "" : " ");
            }
            if (random.nextInt(3) == 0) {
                String needle = mangle(random, needles.get(random.nextInt(needles.size())));
                int at = switch (random.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> ua.length();
                    default -> random.nextInt(ua.length() + 1);
                };
                ua.insert(at, needle);
            }
            if (random.nextInt(10) == 0) {
                ua.setLength(random.nextInt(ua.length() + 1)); // cut anywhere, also inside a needle
            }
            String agent = ua.toString();
            boolean expected = false;
            for (String needle : needles) {
                expected |= asciiLower(agent).contains(needle);
            }
            matches += expected ? 1 : 0;
            if (p.matches(agent) != expected || p.matches(new AsciiString(agent)) != expected
                    || p.matches(offsetAscii("nmap", agent, "zmeu")) != expected) {
                assertThat(new boolean[] {p.matches(agent), p.matches(new AsciiString(agent)), p.matches(offsetAscii("nmap", agent, "zmeu"))})
                        .as("'%s'", agent).containsOnly(expected);
            }
        }
        assertThat(matches).as("agents with a needle").isBetween(12_000, 30_000);
    }

    /**
     * The per-thread verdict memo ({@link UserAgentVerdicts}) answers what the scan does: 3,000 browser-like
     * agents, a third with a needle (more than the memo's slots, so they evict each other), evaluated over
     * five rounds in a new random order each, as an AsciiString, an AsciiString inside a bigger array and
     * a request view ({@link BulkText}), by two policies with different needles in turn and a third compiled
     * from the same needles as the first (a reload); each verdict against the naive search. Seeded.
     */
    @Test
    void theVerdictMemoAnswersWhatTheScanDoes() {
        List<String> synthetic = List.of(SyntheticConfig.USER_AGENT_NEEDLES);
        List<String> others = List.of("mozilla", "chrome/13", "bot", "iphone os 17");
        UserAgentPolicy[] policies = {
            new UserAgentPolicy("synthetic", synthetic, false, PolicyDecision.DROP),
            new UserAgentPolicy("others", others, false, PolicyDecision.DROP),
            new UserAgentPolicy("synthetic", synthetic, false, PolicyDecision.DROP),
        };
        List<List<String>> needlesOf = List.of(synthetic, others, synthetic);
        SplittableRandom random = new SplittableRandom(3_117);
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            StringBuilder ua = new StringBuilder("Mozilla/5.0 ");
            for (int t = random.nextInt(1, 8); t > 0; t--) {
                ua.append(BROWSER_TOKENS[random.nextInt(BROWSER_TOKENS.length)]).append(' ');
            }
            if (random.nextInt(3) == 0) {
                ua.insert(random.nextInt(ua.length() + 1), mangle(random, synthetic.get(random.nextInt(synthetic.size()))));
            }
            agents.add(ua.toString());
        }
        int found = 0;
        for (int round = 0; round < 5; round++) {
            for (int i = agents.size() - 1; i > 0; i--) {
                agents.set(i, agents.set(random.nextInt(i + 1), agents.get(i)));
            }
            for (String agent : agents) {
                int which = random.nextInt(policies.length);
                found += agreesWithTheNaiveSearch(random, policies[which], needlesOf.get(which), agent, "nmap", "zmeu", round) ? 1 : 0;
            }
        }
        assertThat(found).as("verdicts that deny").isBetween(3_000, 12_000);
    }

    /**
     * Two agents of one length and one hash share a memo slot and key: the memo must tell them apart by
     * their bytes, in either order. They are found by search (the hash reads every byte, so such pairs are rare).
     */
    @Test
    void valuesWithTheSameHashAreToldApartByTheirBytes() {
        String[] pair = sameHashPair();
        String clean = pair[0];
        String scanner = pair[1];
        for (int round = 0; round < 3; round++) {
            assertThat(denies(policy, new AsciiString(clean))).as("clean, round %d", round).isFalse();
            assertThat(denies(policy, BulkText.readable(scanner))).as("scanner, round %d", round).isTrue();
            assertThat(denies(policy, new AsciiString(scanner))).as("scanner again, round %d", round).isTrue();
            assertThat(denies(policy, BulkText.readable(clean))).as("clean again, round %d", round).isFalse();
        }
    }

    /** A clean agent and one with "sqlmap" in it, of one length and one {@code hashAll}: a birthday search over suffixes. */
    private static String[] sameHashPair() {
        java.util.Map<Integer, String> clean = new java.util.HashMap<>();
        java.util.Map<Integer, String> scanner = new java.util.HashMap<>();
        for (long i = 0; ; i++) {
            String suffix = String.format(" %08x", i);
            String a = CHROME + " intel " + suffix;
            String b = CHROME + " sqlmap" + suffix;
            int ha = io.paduraksa.text.ByteHash.hashAll(bytes(a), 0, a.length());
            int hb = io.paduraksa.text.ByteHash.hashAll(bytes(b), 0, b.length());
            if (scanner.containsKey(ha)) {
                return new String[] {a, scanner.get(ha)};
            }
            if (clean.containsKey(hb)) {
                return new String[] {clean.get(hb), b};
            }
            clean.put(ha, a);
            scanner.put(hb, b);
        }
    }

    /**
     * User agents of one browser differ in a few bytes anywhere (version numbers), so the memo's hash reads
     * every byte: every one-byte change of a 111-byte Chrome agent, at every position, changes it.
     */
    @Test
    void everyByteOfAnAgentChangesItsHash() {
        byte[] agent = bytes(CHROME);
        for (int n = 1; n <= agent.length; n++) {
            int whole = io.paduraksa.text.ByteHash.hashAll(agent, 0, n);
            for (int at = 0; at < n; at++) {
                byte[] changed = agent.clone();
                changed[at] ^= 0x01;
                assertThat(io.paduraksa.text.ByteHash.hashAll(changed, 0, n)).as("length %d, byte %d", n, at).isNotEqualTo(whole);
            }
        }
    }

    /**
     * A value is kept the second time in a row it is offered to its slot (a client with a new agent in every
     * request costs no copy), under its own needle set, and a value of another needle set in between starts over.
     */
    @Test
    void aValueIsKeptTheSecondTimeItIsOffered() {
        UserAgentVerdicts memo = new UserAgentVerdicts();
        byte[] agent = bytes(CHROME);
        long key = UserAgentVerdicts.key(io.paduraksa.text.ByteHash.hashAll(agent, 0, agent.length), agent.length);
        memo.offer(key, 7, agent, 0, agent.length, false);
        assertThat(memo.lookup(key, 7, agent, 0, agent.length)).isEqualTo(UserAgentVerdicts.UNKNOWN);
        memo.offer(key, 7, agent, 0, agent.length, false);
        assertThat(memo.lookup(key, 7, agent, 0, agent.length)).isEqualTo(UserAgentVerdicts.NOT_FOUND);
        assertThat(memo.lookup(key, 8, agent, 0, agent.length)).isEqualTo(UserAgentVerdicts.UNKNOWN);
        memo.offer(key, 8, agent, 0, agent.length, true);
        memo.offer(key, 7, agent, 0, agent.length, false);
        assertThat(memo.lookup(key, 7, agent, 0, agent.length)).isEqualTo(UserAgentVerdicts.UNKNOWN);
        memo.offer(key, 7, agent, 0, agent.length, true);
        assertThat(memo.lookup(key, 7, agent, 0, agent.length)).isEqualTo(UserAgentVerdicts.FOUND);
    }

    /** One value, two compiled needle sets in turn (a reload on the same event loop): each answers for itself. */
    @Test
    void aVerdictBelongsToTheNeedlesThatFoundIt() {
        UserAgentPolicy before = new UserAgentPolicy("bots", List.of("sqlmap"), false, PolicyDecision.DROP);
        UserAgentPolicy after = new UserAgentPolicy("bots", List.of("nikto"), false, PolicyDecision.DROP);
        AsciiString agent = new AsciiString("sqlmap/1.7.2#stable (https://sqlmap.org)");
        for (int round = 0; round < 3; round++) {
            assertThat(denies(before, agent)).isTrue();
            assertThat(denies(after, agent)).isFalse();
        }
    }

    /**
     * The neighbour window ({@link UserAgentVerdicts#window}) against a naive search: chains of agents in which
     * each is the one before it edited (version digits changed, bytes inserted, dropped or replaced anywhere, a
     * needle put in as sent or mangled, cut or extended, now and then an unrelated agent or an exact repeat), so
     * that almost every value misses the memo and is scanned only where it differs from the last clean one.
     * Four needle sets in turn (the benchmark's 30, one with one-byte and 40-byte needles, one of two-byte
     * needles, and a recompile of the first, whose neighbour must not be read), three text shapes. Seeded.
     */
    @Test
    void theNeighbourWindowAnswersWhatTheScanDoes() {
        List<List<String>> sets = List.of(List.of(SyntheticConfig.USER_AGENT_NEEDLES),
                List.of("~", "a-needle-of-forty-bytes-to-widen-the-win", "sqlmap"), List.of("cd", "KH", "0;"),
                List.of(SyntheticConfig.USER_AGENT_NEEDLES));
        UserAgentPolicy[] policies = new UserAgentPolicy[sets.size()];
        for (int i = 0; i < policies.length; i++) {
            policies[i] = new UserAgentPolicy("set" + i, sets.get(i), false, PolicyDecision.DROP);
        }
        List<String> planted = new ArrayList<>();
        sets.forEach(planted::addAll);
        SplittableRandom random = new SplittableRandom(6_006);
        String agent = CHROME;
        int which = 0;
        int found = 0;
        for (int round = 0; round < 60_000; round++) {
            agent = edit(random, agent, planted);
            if (random.nextInt(50) == 0) {
                which = random.nextInt(policies.length);
            }
            boolean expected = agreesWithTheNaiveSearch(random, policies[which], sets.get(which), agent, "cd~", "KH0;", round);
            found += expected ? 1 : 0;
            if (expected && random.nextInt(4) != 0) {
                agent = CHROME; // back to clean ones, so that most neighbours come from a clean chain
            }
        }
        assertThat(found).as("verdicts that deny").isBetween(2_000, 20_000);
    }

    /**
     * The value and its clean neighbour share "abc" and "def": with nothing between them in the value, the needle
     * "cd" exists only across the junction, which the window must cover.
     */
    @Test
    void theNeighbourWindowCoversWhereItsPrefixMeetsItsSuffix() {
        UserAgentPolicy p = new UserAgentPolicy("junction", List.of("cd", "zz"), false, PolicyDecision.DROP);
        assertThat(denies(p, new AsciiString("abcXYdef"))).isFalse();
        assertThat(denies(p, new AsciiString("abcdef"))).isTrue();
        assertThat(denies(p, new AsciiString("abcXYdef"))).isFalse();
        assertThat(denies(p, new AsciiString("abcXYdefcd"))).isTrue();
        assertThat(denies(p, new AsciiString("abcXYdef"))).isFalse();
        assertThat(denies(p, new AsciiString("cdabcXYdef"))).isTrue();
    }

    /**
     * The clean value kept as the neighbour is that value byte for byte, whether it was scanned over its window
     * alone (near its neighbour) or after the memo missed (far from it): with one byte of the old neighbour left
     * where the two differed, the kept neighbour would read "aacd" and the next value, "aacd" itself, would not
     * be scanned at all.
     */
    @Test
    void theKeptNeighbourIsTheCleanValueByteForByte() {
        UserAgentPolicy p = new UserAgentPolicy("stale", List.of("cd", "zz"), false, PolicyDecision.DROP);
        String tail = " Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0";
        String far = " Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Mobile/15E148";
        String[][] chains = {{"aacZ" + tail, "aaXd" + tail, "aacd" + tail}, {"aacZ" + tail, "aaXd" + far, "aacd" + far}};
        for (String[] chain : chains) {
            assertThat(denies(p, new AsciiString(chain[0]))).isFalse();
            assertThat(denies(p, new AsciiString(chain[1]))).isFalse();
            assertThat(denies(p, new AsciiString(chain[2]))).as(chain[2]).isTrue();
        }
    }

    /**
     * The shared prefix and suffix the window is built from, against a byte loop: every length up to 80 (so that
     * the eight-byte steps and the byte tail both end comparisons), the first difference anywhere
     * or nowhere, at offsets inside bigger arrays.
     */
    @Test
    void sharedPrefixAndSuffixAgreeWithAByteLoop() {
        SplittableRandom random = new SplittableRandom(16);
        for (int round = 0; round < 40_000; round++) {
            int max = random.nextInt(81);
            byte[] a = new byte[max + random.nextInt(4)];
            random.nextBytes(a);
            int from = random.nextInt(5);
            byte[] b = new byte[from + a.length + random.nextInt(4)];
            random.nextBytes(b);
            // b shares a's first max bytes (for the prefix) or its last ones (for the suffix), up to one difference
            boolean prefix = random.nextBoolean();
            int aStart = prefix ? 0 : a.length - max;
            int bStart = prefix ? from : b.length - max;
            System.arraycopy(a, aStart, b, bStart, max);
            if (max > 0 && random.nextInt(4) != 0) {
                b[bStart + random.nextInt(max)] ^= (byte) (1 << random.nextInt(8));
            }
            int expected = 0;
            if (prefix) {
                while (expected < max && a[expected] == b[from + expected]) {
                    expected++;
                }
                assertThat(UserAgentVerdicts.commonPrefix(a, b, from, max)).as("prefix, round %d", round).isEqualTo(expected);
            } else {
                while (expected < max && a[a.length - 1 - expected] == b[b.length - 1 - expected]) {
                    expected++;
                }
                assertThat(UserAgentVerdicts.commonSuffix(a, a.length, b, b.length, max)).as("suffix, round %d", round)
                        .isEqualTo(expected);
            }
        }
    }

    /** The window of a value against its clean neighbour: what differs, widened by the longest needle less one. */
    @Test
    void theWindowIsWhatDiffersWidenedByTheLongestNeedle() {
        UserAgentVerdicts memo = new UserAgentVerdicts();
        byte[] before = bytes("Mozilla/5.0 Chrome/131.0.10.2 Safari/537.36");
        byte[] after = bytes("xxMozilla/5.0 Chrome/131.0.7.2 Safari/537.36yy");
        assertThat(memo.window(3, 5, after, 2, after.length - 4)).as("no neighbour: all").isEqualTo(after.length - 4);
        memo.clean(3, before, 0, before.length, 0);
        assertThat(memo.window(4, 5, after, 2, after.length - 4)).as("another needle set: all").isEqualTo(after.length - 4);
        // "...131.0." (25 bytes) in common, then "10" against "7", then ".2 Safari/537.36" (16 bytes).
        int n = after.length - 4;
        assertThat(memo.window(3, 5, after, 2, n)).isEqualTo((long) (25 - 5) << 32 | (n - 16 + 5));
        assertThat(memo.window(3, 40, after, 2, n)).as("clipped to the value").isEqualTo(n);
        // A prefix of the neighbour holds no needle the neighbour does not: nothing to scan.
        byte[] prefix = bytes("Mozilla/5.0 Chr");
        assertThat(memo.window(3, 2, prefix, 0, prefix.length)).isZero();
        // Kept as the neighbour with its shared prefix not copied again, it is the neighbour byte for byte: its own
        // window is empty, and a value one byte shorter or longer is scanned over its last reach bytes.
        memo.clean(3, after, 2, n, 25);
        assertThat(memo.window(3, 5, after, 2, n)).isZero();
        assertThat(memo.window(3, 5, after, 2, n - 1)).as("a prefix of it").isZero();
        assertThat(memo.window(3, 5, after, 3, n - 1)).as("a suffix of it").isEqualTo(5);
        assertThat(memo.window(3, 5, after, 1, n + 1)).as("a byte put before it").isEqualTo(6);
        assertThat(memo.window(3, 5, after, 2, n + 1)).isEqualTo((long) (n - 5) << 32 | n + 1);
        // The suffix is counted only after the prefix, so that the window is never inverted: "abd" shares "ab" and,
        // after it, "d" with "abcabd" (uncapped, its whole self would be a shared suffix too).
        memo.clean(3, bytes("abcabd"), 0, 6, 0);
        assertThat(memo.window(3, 1, bytes("abd"), 0, 3)).isEqualTo(1L << 32 | 3);
    }

    private static final String EDIT_CHARS = "x.-/ 3~AbCd\u00c3";

    /** The agent edited once: version digits, a byte inserted, dropped or replaced, a needle put in, a cut. */
    private static String edit(SplittableRandom random, String agent, List<String> needles) {
        StringBuilder ua = new StringBuilder(agent);
        int at = random.nextInt(ua.length() + 1);
        switch (random.nextInt(12)) {
            case 0, 1, 2, 3 -> {
                for (int i = 0; i < ua.length(); i++) {
                    if (Character.isDigit(ua.charAt(i)) && random.nextInt(4) == 0) {
                        ua.setCharAt(i, (char) ('0' + random.nextInt(10)));
                    }
                }
            }
            case 4 -> ua.insert(at, EDIT_CHARS.charAt(random.nextInt(EDIT_CHARS.length())));
            case 5 -> ua.delete(Math.max(0, at - 1 - random.nextInt(6)), at);
            case 6 -> {
                if (at < ua.length()) {
                    ua.setCharAt(at, EDIT_CHARS.charAt(random.nextInt(EDIT_CHARS.length())));
                }
            }
            case 7 -> ua.insert(at, mangle(random, needles.get(random.nextInt(needles.size()))));
            case 8 -> ua.setLength(Math.max(1, at));
            case 9 -> ua.append(" Edg/131.0.").append(random.nextInt(3_000));
            case 10 -> ua.replace(0, ua.length(), BROWSER_TOKENS[random.nextInt(BROWSER_TOKENS.length)]);
            default -> {
                // the same agent again
            }
        }
        if (ua.length() > UserAgentVerdicts.MAX - 20) {
            ua.setLength(UserAgentVerdicts.MAX / 2);
        }
        return ua.toString();
    }

    /** A value longer than a memo slot is scanned every time, also from a request view (read per byte). */
    @Test
    void aValueLongerThanASlotIsScannedEveryTime() {
        String longAgent = CHROME + " " + "x".repeat(UserAgentVerdicts.MAX) + " nikto";
        String longClean = CHROME + " " + "x".repeat(UserAgentVerdicts.MAX) + " nikt0";
        for (int round = 0; round < 3; round++) {
            assertThat(denies(policy, new AsciiString(longAgent))).isTrue();
            assertThat(denies(policy, BulkText.readable(longAgent))).isTrue();
            assertThat(denies(policy, BulkText.readable(longClean))).isFalse();
        }
    }

    private static final String[] BROWSER_TOKENS = ("(Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148 "
            + "(X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 (compatible; Googlebot/2.1) okhttp/4.12.0 "
            + "Version/17.4 SamsungBrowser/25.0 OPR/114.0.0.0").split(" ");

    /**
     * {@code p}'s verdict on {@code agent} in a random one of three text shapes (an AsciiString, one inside a bigger
     * array between {@code before} and {@code after}, a request view) against a naive search; whether it denies.
     */
    private static boolean agreesWithTheNaiveSearch(SplittableRandom random, UserAgentPolicy p, List<String> needles, String agent,
            String before, String after, int round) {
        boolean expected = false;
        for (String needle : needles) {
            expected |= asciiLower(agent).contains(asciiLower(needle));
        }
        CharSequence[] shapes = {new AsciiString(agent), offsetAscii(before, agent, after), BulkText.readable(agent)};
        CharSequence shape = shapes[random.nextInt(shapes.length)];
        if (denies(p, shape) != expected) {
            assertThat(denies(p, shape)).as("round %d, %s, '%s'", round, p, agent).isEqualTo(expected);
        }
        return expected;
    }

    private static boolean denies(UserAgentPolicy p, CharSequence userAgent) {
        return p.evaluate(new Request(userAgent)) != PolicyDecision.CONTINUE;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The needle as sent, in random letter case, or with one byte dropped or replaced. */
    private static String mangle(SplittableRandom random, String needle) {
        char[] chars = needle.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = random.nextBoolean() ? Character.toUpperCase(chars[i]) : chars[i];
        }
        int at = random.nextInt(chars.length);
        return switch (random.nextInt(4)) {
            case 0 -> new String(chars, 0, at) + new String(chars, at + 1, chars.length - at - 1);
            case 1 -> {
                chars[at] = "x.-/ 3\u00e9".charAt(random.nextInt(7));
                yield new String(chars);
            }
            default -> new String(chars);
        };
    }

    @Test
    void charsAboveLatin1MatchNothing() {
        UserAgentPolicy p = new UserAgentPolicy("wide", List.of("a", "bc"), false, PolicyDecision.DROP);
        // U+0161 and U+0162 share their low byte with 'a' (0x61) and 'b' (0x62).
        assertThat(p.matches("\u0161\u0162c")).isFalse();
        assertThat(p.matches("\u0162c\u0161bc")).isTrue();
    }

    /** {@code middle} inside a bigger array, so that a scan past either end would read the padding. */
    private static AsciiString offsetAscii(String before, String middle, String after) {
        byte[] all = (before + middle + after).getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(all, before.length(), middle.length(), false);
    }

    private static String asciiLower(String s) {
        char[] chars = s.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = chars[i] >= 'A' && chars[i] <= 'Z' ? (char) (chars[i] | 0x20) : chars[i];
        }
        return new String(chars);
    }

    private static String utf8AsChars(String needle) {
        return new String(needle.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    private static String randomString(SplittableRandom random, char[] alphabet, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return new String(chars);
    }
}
