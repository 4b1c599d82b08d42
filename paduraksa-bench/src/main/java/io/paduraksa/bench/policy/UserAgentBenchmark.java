package io.paduraksa.bench.policy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.AsciiString;
import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.UserAgentPolicy;
import io.paduraksa.testing.SyntheticConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link UserAgentPolicy#matches} with the 30 needles of the synthetic snapshot, against two
 * controls in the same JVM: the Aho-Corasick DFA it replaced ({@link AhoCorasickControl}) and a
 * loop that only reads every char (what any scan through {@code charAt} pays at least).
 *
 * <p>{@code input}: {@code ascii} is an {@link AsciiString} (HTTP/2 hands header values over this
 * way); {@code view} is a re-pointable CharSequence over a pooled direct buffer with a bounds check
 * per char, like the server's HTTP/1.1 {@code AsciiView}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class UserAgentBenchmark {

    /** 267 bytes: an iPhone Safari user agent inside the Facebook app, as mobile traffic often looks. */
    static final String MOBILE_SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            + "(KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0.0.46.77;FBBV/620123456;FBDV/iPhone15,2;"
            + "FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/622000000] Safari/604.1";

    @Param({"chrome", "curl", "scanner", "mobileSafari"})
    public String shape;

    @Param({"ascii", "view"})
    public String input;

    private UserAgentPolicy policy;
    private AhoCorasickControl.Automaton dfa;
    private ByteBuf buffer;
    private CharSequence userAgent;

    @Setup
    public void setUp() {
        List<String> needles = List.of(SyntheticConfig.USER_AGENT_NEEDLES);
        policy = new UserAgentPolicy("bad-bots", needles, false, PolicyDecision.DROP);
        dfa = AhoCorasickControl.Automaton.compile("bad-bots", needles);
        String ua = switch (shape) {
            case "chrome" -> BenchFixtures.CHROME_UA;
            case "curl" -> "curl/8.5.0";
            case "scanner" -> "Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)";
            case "mobileSafari" -> MOBILE_SAFARI;
            default -> throw new IllegalArgumentException(shape);
        };
        byte[] bytes = ua.getBytes(StandardCharsets.ISO_8859_1);
        if (input.equals("ascii")) {
            userAgent = new AsciiString(bytes, false);
        } else {
            // Some request-line and header bytes in front, as in a real inbound buffer.
            buffer = PooledByteBufAllocator.DEFAULT.directBuffer(64 + bytes.length);
            buffer.writeZero(64).writeBytes(bytes);
            userAgent = new BufView().point(buffer, 64, 64 + bytes.length);
        }
        if (policy.matches(userAgent) != dfa.occursIn(userAgent)) {
            throw new AssertionError("matcher and control disagree on " + ua);
        }
    }

    @TearDown
    public void tearDown() {
        if (buffer != null) {
            buffer.release();
        }
    }

    @Benchmark
    public boolean pairFilter() {
        return policy.matches(userAgent);
    }

    @Benchmark
    public boolean controlAhoCorasick() {
        return dfa.occursIn(userAgent);
    }

    @Benchmark
    public int controlReadEveryChar() {
        CharSequence s = userAgent;
        int sum = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            sum += s.charAt(i);
        }
        return sum;
    }

    /** The shape of the server's HTTP/1.1 {@code AsciiView}: bounds check, then {@code ByteBuf.getByte}. */
    static final class BufView implements CharSequence {
        private ByteBuf buf;
        private int from;
        private int length;

        BufView point(ByteBuf buf, int from, int to) {
            this.buf = buf;
            this.from = from;
            this.length = to - from;
            return this;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            if (index < 0 || index >= length) {
                throw new IndexOutOfBoundsException(index);
            }
            return (char) (buf.getByte(from + index) & 0xFF);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String toString() {
            return buf.toString(from, length, StandardCharsets.ISO_8859_1);
        }
    }
}
