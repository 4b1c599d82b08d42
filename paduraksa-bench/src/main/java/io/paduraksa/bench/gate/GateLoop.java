package io.paduraksa.bench.gate;

import io.netty.util.AsciiString;
import io.paduraksa.bench.BenchFixtures;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;

/**
 * The gate scenarios of {@link GateBenchmark} and {@link GateJarComparison}: one setup and the call,
 * defined anew in each compared jar's class loader, so it runs against that jar's gate. Uses only API
 * that older builds have too.
 *
 * <p>Every scenario but the last three repeats one request, whose agent the user-agent policy answers from
 * its per-thread clean neighbour (the same value as the last clean one). {@code forwardAgentsInTurn} is the
 * {@code forward} request with four unlike browsers' agents in turn, as several clients send them: each is
 * answered by the policy's memo. {@code forwardNewAgent} is the {@code forward} request whose agent is the
 * next of {@value #AGENTS} Chrome agents at every call (more than the memo holds), read from one request
 * object, so every call scans its agent where it differs from the one before; {@code forwardNewRequest} does
 * the same with {@value #AGENTS} request objects in turn, whose reads then also miss the CPU's caches.
 */
public final class GateLoop {
    static final String[] SCENARIOS = {"answer200", "redirect301", "deny403", "forward", "forwardViaCfHeader", "forwardNewAgent",
        "forwardAgentsInTurn", "forwardNewRequest"};
    static final int AGENTS = 4_096;
    /** Four browsers' agents, each unlike the others, for {@code forwardAgentsInTurn}. */
    static final String[] UNLIKE_AGENTS = {
        BenchFixtures.CHROME_UA,
        "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 "
            + "Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.39 Mobile "
            + "Safari/537.36 EdgA/131.0.2903.48",
    };

    private final Snapshot snapshot;
    private final Gate gate;
    private final RequestView[] views;
    /** The view of {@code forwardNewAgent} and {@code forwardAgentsInTurn}, else null. */
    private NewAgentView newAgent;
    private final RequestState state = new RequestState();
    private int next;

    public GateLoop(String scenario) {
        snapshot = CompiledFixtures.synthetic();
        gate = new Gate(new SnapshotStore(snapshot));
        boolean viaHeader = scenario.equals("forwardViaCfHeader");
        boolean newRequests = scenario.equals("forwardNewRequest");
        StaticRequestView[] requests = new StaticRequestView[newRequests ? AGENTS : 1];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = request(scenario, viaHeader, requests.length == 1 ? BenchFixtures.CHROME_UA : agent(i));
        }
        if (scenario.equals("forwardNewAgent") || scenario.equals("forwardAgentsInTurn")) {
            AsciiString[] agents = new AsciiString[scenario.equals("forwardNewAgent") ? AGENTS : UNLIKE_AGENTS.length];
            for (int i = 0; i < agents.length; i++) {
                agents[i] = new AsciiString(scenario.equals("forwardNewAgent") ? agent(i) : UNLIKE_AGENTS[i]);
            }
            newAgent = new NewAgentView(requests[0], agents);
            views = new RequestView[] {newAgent};
        } else {
            views = requests;
        }
    }

    private static String agent(int i) {
        return BenchFixtures.CHROME_UA.replace("Chrome/131.0.0.0", "Chrome/131.0." + i / 64 + "." + i % 64);
    }

    private static StaticRequestView request(String scenario, boolean viaHeader, String agent) {
        return new StaticRequestView()
                    .client(viaHeader ? BenchFixtures.client("198.51.100.20", true) : BenchFixtures.client("203.0.113.9", false))
                    .authority("h321.test:443")
                    .target(switch (scenario) {
                        case "answer200" -> "/static";
                        case "redirect301" -> "/old";
                        case "deny403" -> "/admin/users";
                        default -> "/products/shoes/item-4711?color=red";
                    })
                    .header("accept", "text/html,application/xhtml+xml")
                    .header("user-agent", agent)
                    .header("cf-connecting-ip", "2001:db8:1234::42");
    }

    /** One call of the gate, on the next request of the scenario. */
    public GateOutcome once() {
        if (newAgent != null) {
            newAgent.nextAgent();
        }
        RequestView[] all = views;
        return gate.run(all[next++ & all.length - 1], state);
    }

    /** Runs the gate {@code n} times; the sum of the outcomes' ordinals, so that no call is dead code. */
    public long run(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += once().ordinal();
        }
        return sum;
    }

    /** What the gate decided, to check that every jar decides the same. */
    public String decision() {
        GateOutcome outcome = once();
        return outcome + " " + state.response() + " " + (state.cluster() == null ? "-" : state.cluster().name());
    }

    /** Releases the snapshot's pooled answers. */
    public void close() {
        snapshot.release();
    }

    /**
     * One request whose {@code User-Agent} is the next of {@code agents} at every call ({@link #nextAgent} moves it on
     * before each run): a client that sends a new agent in every request, read from the one request object, as a
     * connection's view is one object over the buffer just read.
     */
    private static final class NewAgentView implements RequestView {
        private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
        private final StaticRequestView request;
        private final AsciiString[] agents;
        private int next;
        private AsciiString agent;

        NewAgentView(StaticRequestView request, AsciiString[] agents) {
            this.request = request;
            this.agents = agents;
        }

        void nextAgent() {
            agent = agents[next++ & agents.length - 1];
        }

        @Override
        public ClientInfo client() {
            return request.client();
        }

        @Override
        public CharSequence method() {
            return request.method();
        }

        @Override
        public CharSequence target() {
            return request.target();
        }

        @Override
        public CharSequence authority() {
            return request.authority();
        }

        @Override
        public CharSequence header(AsciiString lowerCaseName) {
            return lowerCaseName.contentEqualsIgnoreCase(USER_AGENT) ? agent : request.header(lowerCaseName);
        }

        @Override
        public int headerCount() {
            return request.headerCount();
        }

        @Override
        public CharSequence headerName(int index) {
            return request.headerName(index);
        }

        @Override
        public CharSequence headerValue(int index) {
            CharSequence name = request.headerName(index);
            return USER_AGENT.contentEqualsIgnoreCase(name) ? agent : request.headerValue(index);
        }
    }
}
