package io.paduraksa.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.paduraksa.server.cycle.DrainEvent;
import io.paduraksa.server.cycle.GateMeter;
import io.paduraksa.server.cycle.ListenerServices;
import io.netty.channel.EventLoop;
import io.paduraksa.proxy.ConnectionPool;
import io.paduraksa.proxy.Endpoint;
import io.paduraksa.proxy.http1.Http1UpstreamPool;
import io.paduraksa.proxy.http2.Http2UpstreamPool;
import io.paduraksa.snapshot.UpstreamCluster;
import io.paduraksa.config.ListenerSpec;
import io.paduraksa.config.PaduraksaSpec;
import io.paduraksa.config.TlsSpec;
import io.paduraksa.gate.Gate;
import io.paduraksa.ops.AdminHandler;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.ops.Metrics;
import io.paduraksa.ops.Reloader;
import io.paduraksa.ops.Signals;
import io.paduraksa.ops.SystemdNotifier;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.proxy.UpstreamForwarder;
import io.paduraksa.proxy.cache.CacheStore;
import io.paduraksa.proxy.cache.CachingForwarder;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.connection.TlsContexts;
import io.paduraksa.server.connection.TlsException;
import io.paduraksa.server.http3.Http3Listener;
import io.paduraksa.server.transport.InheritedSockets;
import io.paduraksa.server.transport.Transport;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Paduraksa: the event loops of the chosen transport, one server channel per listener,
 * the snapshot store with its reloader, and the once-a-second Date. {@link #start} binds every
 * listener or fails; {@link #stop} stops accepting, lets requests in flight finish (HTTP/2 gets
 * GOAWAY) up to the drain timeout, and frees everything.
 */
public final class EdgeServer {
    private static final Logger LOG = LoggerFactory.getLogger(EdgeServer.class);

    private final PaduraksaSpec spec;
    private final Transport transport;
    private final EventLoopGroup group;
    /** Event loops in {@link #group}: each HTTP/3 listener gets one UDP socket per loop on epoll. */
    private final int threads;
    private final SnapshotStore store;
    private final Reloader reloader;
    private final ScheduledExecutorService clock;
    private final ChannelGroup connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
    private final List<Channel> serverChannels = new ArrayList<>();
    private final List<ListenerInitializer> listeners = new ArrayList<>();
    /** The UDP sides of listeners that serve h3, closed after the drain (their sockets carry every QUIC connection). */
    private final List<Http3Listener> http3 = new ArrayList<>();
    /** Inherited listening sockets (socket activation), by listener index; null where the listener is bound. */
    private final Channel[] adopted;
    private final Map<String, InetSocketAddress> bound = new LinkedHashMap<>();
    private volatile boolean stopping;
    /** The listeners' shared services (their stopping flag); null until the constructor set them. */
    private ListenerServices services;
    /** The Unix socket a new process takes the listening sockets from ({@code --takeover-socket}), or null. */
    private volatile Channel takeover;
    /** Every listener bound: the start succeeded (a failed start stops without the drain lines). */
    private volatile boolean started;
    /** The forwarder this server made (and closes), or null when one was given. */
    private final UpstreamForwarder upstreams;
    /** The response cache in front of {@link #upstreams}, or null when a forwarder was given. */
    private final CachingForwarder cache;
    private volatile SystemdNotifier notifier = SystemdNotifier.none();
    private final Metrics metrics;
    /** The access log, or null when off. */
    private final AccessLog accessLog;

    private EdgeServer(Path configFile, Snapshot initial, Forwarder forwarder, GateMeter meter, InheritedSockets inherited)
            throws Exception {
        this.spec = initial.spec();
        this.transport = transportFor(Transport.choose(spec.server().transport()), inherited);
        LOG.info("transports: {}; using {}", Transport.availabilityReport(), transport.name());
        if (inherited.ignored() != null) {
            LOG.info("inherited sockets not taken: {}", inherited.ignored());
        }
        this.adopted = adopt(transport, spec.listeners(), inherited);
        int threads = spec.server().threads() > 0 ? spec.server().threads() : Runtime.getRuntime().availableProcessors();
        this.threads = threads;
        this.group = transport.newEventLoopGroup(threads);
        this.store = new SnapshotStore(initial);
        this.reloader = new Reloader(configFile, store, spec.server().reloadGrace());
        DateHeader date = new DateHeader();
        this.clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "paduraksa-clock");
            t.setDaemon(true);
            return t;
        });
        clock.scheduleAtFixedRate(() -> date.refresh(System.currentTimeMillis()), 0, 200, TimeUnit.MILLISECONDS);
        this.metrics = newMetrics(spec, store);
        this.upstreams = forwarder == null
                ? new UpstreamForwarder(group, transport.socketChannelClass(), metrics.upstream(), EdgeServer::openPool) : null;
        if (upstreams != null) {
            metrics.upstream().source(upstreams);
            upstreams.prepare(initial);
        }
        this.accessLog = spec.accessLog().enabled() ? new AccessLog(spec.accessLog(), listenerNames(spec), threads) : null;
        if (accessLog != null) {
            metrics.accessLog(accessLog);
            reloader.addSignalHook(accessLog::reopen);
        }
        this.cache = upstreams != null ? new CachingForwarder(upstreams, new CacheStore(spec.cache()), date) : null;
        if (cache != null) {
            metrics.cache(cache.store());
        }
        ListenerServices context = services = new ListenerServices(new Gate(store), forwarder == null ? cache : forwarder, date, meter, metrics, 0,
                accessLog);
        for (int i = 0; i < spec.listeners().size(); i++) {
            ListenerSpec l = spec.listeners().get(i);
            if (l.admin()) {
                continue;
            }
            listeners.add(new ListenerInitializer(i, l, spec.limits(), context.forListener(i), store,
                    tls(l, configDirectory(configFile)), connections));
        }
        metrics.openConnections(this::openConnections);
        reloader.addListener((previous, current) -> afterReload(current));
    }

    /** Counters labelled by listener name (the address text when unnamed), in the order of {@code listeners:}. */
    private static Metrics newMetrics(PaduraksaSpec spec, SnapshotStore store) {
        boolean[] admin = new boolean[spec.listeners().size()];
        boolean[] tls = new boolean[admin.length];
        for (int i = 0; i < admin.length; i++) {
            admin[i] = spec.listeners().get(i).admin();
            tls[i] = !admin[i] && spec.listeners().get(i).tls() != null;
        }
        Metrics metrics = new Metrics(store, listenerNames(spec), admin);
        metrics.tlsListeners(tls);
        return metrics;
    }

    private static List<String> listenerNames(PaduraksaSpec spec) {
        List<String> names = new ArrayList<>();
        for (ListenerSpec l : spec.listeners()) {
            names.add(l.name() == null ? l.address() : l.name());
        }
        return names;
    }

    private int openConnections(int listenerIndex) {
        for (ListenerInitializer l : listeners) {
            if (l.index() == listenerIndex) {
                return l.openConnections();
            }
        }
        return -1;
    }

    /** Starts with the upstream forwarder and no meter. */
    public static EdgeServer start(Path configFile, Snapshot initial) throws Exception {
        return start(configFile, initial, null, null);
    }

    /**
     * Starts and binds every listener; on failure releases what was started and throws. A null
     * {@code forwarder} means the real one ({@link UpstreamForwarder} on this server's event loops).
     */
    public static EdgeServer start(Path configFile, Snapshot initial, Forwarder forwarder, GateMeter meter) throws Exception {
        return start(configFile, initial, forwarder, meter, InheritedSockets.none());
    }

    /**
     * As {@link #start(Path, Snapshot, Forwarder, GateMeter)}, taking listening sockets from
     * {@code inherited} (socket activation) for the listeners they match instead of binding them.
     */
    public static EdgeServer start(Path configFile, Snapshot initial, Forwarder forwarder, GateMeter meter,
                                   InheritedSockets inherited) throws Exception {
        EdgeServer server = new EdgeServer(configFile, initial, forwarder, meter, inherited);
        try {
            server.bind();
        } catch (Exception e) {
            server.stop(Duration.ZERO);
            throw e;
        }
        return server;
    }

    /** The listener's TLS contexts; relative PEM paths are resolved against {@code base}, the config file's directory. */
    static TlsContexts tls(ListenerSpec l, Path base) throws TlsException {
        TlsSpec t = l.tls();
        if (t == null) {
            return null;
        }
        List<TlsContexts.CertificateFiles> certs = new ArrayList<>();
        for (TlsSpec.CertificateSpec c : t.certificates()) {
            certs.add(new TlsContexts.CertificateFiles(base.resolve(c.cert()), base.resolve(c.key())));
        }
        List<String> alpn = new ArrayList<>();
        if (l.protocols().contains("h2")) {
            alpn.add("h2");
        }
        if (l.protocols().contains("http1")) {
            alpn.add("http/1.1");
        }
        TlsContexts.Settings defaults = TlsContexts.Settings.of(certs);
        return TlsContexts.load(new TlsContexts.Settings(certs, alpn, t.clientCa() == null ? null : base.resolve(t.clientCa()),
                defaults.provider(), defaults.handshakeTimeoutMillis()));
    }

    private void bind() throws Exception {
        for (ListenerInitializer l : listeners) {
            bindOne(l.index(), l.spec(), l);
            if (l.spec().servesHttp3()) {
                bindHttp3(l);
            }
        }
        for (int i = 0; i < spec.listeners().size(); i++) {
            ListenerSpec l = spec.listeners().get(i);
            if (l.admin()) {
                bindOne(i, l, new AdminHandler.Initializer(store, reloader, this::isReady, metrics, this::boundAddresses));
            }
        }
        started = true;
        LOG.info("serving {} with {} hosts on {}", store.current().sourceName(), store.current().hostList().size(), bound);
    }

    private void bindOne(int index, ListenerSpec l, ChannelHandler initializer) throws BindException {
        Channel inheritedChannel = adopted[index];
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(initializer);
        ChannelFuture f;
        if (inheritedChannel != null) {
            // Already bound and listening: register it with an event loop; it accepts once registered.
            adopted[index] = null;
            f = b.channelFactory(() -> (ServerChannel) inheritedChannel).register().awaitUninterruptibly();
        } else {
            f = b.channel(transport.serverChannelClass())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .bind(address(l.address())).awaitUninterruptibly();
        }
        if (!f.isSuccess()) {
            BindException e = new BindException(bindFailure(index, l, f.cause()));
            e.initCause(f.cause());
            throw e;
        }
        Channel ch = f.channel();
        serverChannels.add(ch);
        bound.put(l.name() == null ? l.address() : l.name(), (InetSocketAddress) ch.localAddress());
    }

    /**
     * The listener's UDP side on the port number its TCP side got, then the {@code Alt-Svc} its
     * HTTP/1.1 and HTTP/2 answers carry from now on (RFC 7838: {@code h3=":PORT"; ma=SECONDS}).
     */
    private void bindHttp3(ListenerInitializer l) throws BindException {
        String name = l.spec().name() == null ? l.spec().address() : l.spec().name();
        InetSocketAddress tcp = bound.get(name);
        Http3Listener h3 = Http3Listener.bind(group, transport.datagramChannelClass(), tcp, l.tls(), l.spec().http3(), spec.limits(),
                l.services(), l.trustedProxies(), l.countries(), connections, threads);
        http3.add(h3);
        l.http3(h3);
        l.services().altSvc(h3.localAddress().getPort(), l.spec().http3().altSvcMaxAge().toSeconds());
        LOG.info("listener {} serves HTTP/3 on UDP {} ({} sockets)", name, h3.localAddress(), h3.sockets());
    }

    /**
     * Inherited sockets need a transport that can wrap a listening descriptor: epoll and io_uring can
     * ({@link Transport#adoptListening}); with NIO (chosen by name) the start fails.
     */
    static Transport transportFor(Transport chosen, InheritedSockets inherited) {
        if (inherited.isEmpty() || chosen != Transport.NIO) {
            return chosen;
        }
        throw new IllegalStateException("inherited listening sockets (LISTEN_FDS) need the epoll or io_uring transport; "
                + "server.transport is " + chosen.name());
    }

    /**
     * Wraps each inherited descriptor in a server channel of {@code transport} and gives it to the listener it
     * matches ({@link #match}); descriptors no listener matches are closed with a warning (systemd
     * keeps its own copy). Listeners without one are bound as usual.
     */
    private static Channel[] adopt(Transport transport, List<ListenerSpec> listeners, InheritedSockets inherited) {
        Channel[] adopted = new Channel[listeners.size()];
        for (InheritedSockets.Socket s : inherited.sockets()) {
            ServerChannel ch;
            try {
                ch = transport.adoptListening(s.fd());
            } catch (RuntimeException e) {
                closeAll(adopted);
                throw new IllegalStateException("inherited descriptor " + s.fd() + describe(s) + " is not a listening TCP socket: "
                        + e.getMessage(), e);
            }
            SocketAddress local = ch.localAddress();
            int index = local instanceof InetSocketAddress a ? match(listeners, s.name(), a, adopted) : -1;
            if (index < 0) {
                LOG.warn("inherited socket fd {}{} on {} matches no listener (by name or address); closing it", s.fd(), describe(s), local);
                ch.unsafe().closeForcibly();
                continue;
            }
            adopted[index] = ch;
            ListenerSpec l = listeners.get(index);
            LOG.info("listener {} uses the inherited socket fd {}{} on {} ({}) instead of binding {}",
                    l.name() == null ? "listeners[" + index + "]" : "'" + l.name() + "'", s.fd(), describe(s), local,
                    transport.name(), l.address());
        }
        return adopted;
    }

    private static String describe(InheritedSockets.Socket s) {
        return s.name() == null ? "" : " (" + s.name() + ")";
    }

    private static void closeAll(Channel[] channels) {
        for (Channel ch : channels) {
            if (ch != null) {
                ch.unsafe().closeForcibly();
            }
        }
    }

    /**
     * The listener an inherited socket belongs to, or -1: the listener whose name is the socket's
     * name ({@code FileDescriptorName=}), else the first listener whose address is the socket's
     * bound address (a wildcard address, IPv4 or IPv6, matches a wildcard socket on the same port).
     * Admin listeners count; listeners in {@code taken} already have a socket.
     */
    static int match(List<ListenerSpec> listeners, String name, InetSocketAddress local, Object[] taken) {
        if (name != null) {
            for (int i = 0; i < listeners.size(); i++) {
                if (taken[i] == null && name.equals(listeners.get(i).name())) {
                    return i;
                }
            }
        }
        for (int i = 0; i < listeners.size(); i++) {
            if (taken[i] != null) {
                continue;
            }
            InetSocketAddress want;
            try {
                want = address(listeners.get(i).address());
            } catch (RuntimeException e) {
                continue;
            }
            if (want.isUnresolved() || want.getPort() != local.getPort()) {
                continue;
            }
            InetAddress w = want.getAddress();
            InetAddress have = local.getAddress();
            if (w.equals(have) || w.isAnyLocalAddress() && have.isAnyLocalAddress()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * One line naming the listener (its name and place in {@code listeners:}), the address and the
     * operating system's reason, e.g. {@code listener 'public' (listeners[0]) cannot bind 127.0.0.1:8080:
     * Address already in use}. Netty's own text ({@code bind(..) failed with error(-98): Address already in use}) names
     * neither.
     */
    static String bindFailure(int index, ListenerSpec l, Throwable cause) {
        String which = l.name() == null ? "listener listeners[" + index + "]" : "listener '" + l.name() + "' (listeners[" + index + "])";
        String reason;
        if (cause == null) {
            reason = "unknown error";
        } else if (cause instanceof UnresolvedAddressException) {
            reason = "cannot resolve the host";
        } else if (cause.getMessage() == null) {
            reason = cause.getClass().getSimpleName();
        } else {
            reason = cause.getMessage();
            // Netty's native transports: "bind(..) failed with error(-98): Address already in use".
            int colon = reason.lastIndexOf(": ");
            if (reason.startsWith("bind(") && colon >= 0) {
                reason = reason.substring(colon + 2);
            }
        }
        return which + " cannot bind " + l.address() + ": " + reason;
    }

    static Path configDirectory(Path configFile) {
        Path parent = configFile.toAbsolutePath().getParent();
        return parent == null ? Path.of("") : parent;
    }

    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, Integer.parseInt(text.substring(colon + 1)));
    }

    private void afterReload(Snapshot current) {
        if (upstreams != null) {
            upstreams.prepare(current);
        }
        if (cache != null) {
            cache.store().settings(current.spec().cache());
        }
        if (!current.spec().listeners().equals(spec.listeners()) || !current.spec().server().equals(spec.server())) {
            LOG.warn("listener and server settings changed in the file; they take effect at the next restart");
        }
        for (ListenerInitializer l : listeners) {
            TlsContexts old = l.tls();
            if (old != null) {
                try {
                    l.tls(old.reload());
                    if (l.http3() != null) {
                        l.http3().tls(l.tls());
                    }
                } catch (TlsException e) {
                    LOG.error("listener {}: TLS certificates not reloaded, the previous ones stay: {}", l.spec().name(), e.getMessage());
                }
            }
        }
    }

    /** Installs SIGHUP (reload) and SIGTERM/SIGINT (graceful stop, then exit 0). */
    public void installSignalHandlers() {
        Signals.onHangup(reloader::reload);
        Signals.onTerminate(() -> {
            stop(spec.server().drainTimeout());
            System.exit(0);
        });
    }

    /**
     * Tells systemd the server is up (READY=1, with the bound addresses as STATUS) and from now on
     * tells it about reloads, the stop and, when the unit has a watchdog, that the event loops run.
     * Called once every listener is bound and the signal handlers are installed, so that a SIGHUP
     * sent as soon as systemd sees READY finds its handler.
     */
    public void ready(SystemdNotifier n) {
        notifier = n;
        reloader.notifier(n);
        n.startWatchdog(group);
        n.ready("serving config generation " + store.current().generation() + " on " + boundText());
    }

    private String boundText() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, InetSocketAddress> e : bound.entrySet()) {
            String host = e.getValue().getAddress().getHostAddress();
            sb.append(sb.isEmpty() ? "" : ", ").append(e.getKey()).append('=')
                    .append(host.indexOf(':') >= 0 ? "[" + host + "]" : host).append(':').append(e.getValue().getPort());
        }
        return sb.toString();
    }

    /**
     * Hands the listening sockets to any process that connects to {@code path} ({@code run --takeover}),
     * over a Unix socket on an epoll loop of its own (the listeners may run on io_uring); needs epoll to be
     * available and listeners that are native sockets (not NIO). The hand-over socket closes when the stop begins.
     */
    public synchronized void acceptTakeovers(Path path) throws java.io.IOException {
        if (transport == Transport.NIO || !Transport.EPOLL.isAvailable()) {
            throw new IllegalStateException("--takeover-socket needs the epoll or io_uring transport and epoll available; this server runs on "
                    + transport.name());
        }
        if (!stopping) {
            takeover = Takeover.serve(path, () -> List.copyOf(serverChannels));
        }
    }

    /** The address each listener is bound to, by listener name (the address text when unnamed). */
    public Map<String, InetSocketAddress> boundAddresses() {
        return Map.copyOf(bound);
    }

    /** The server's request and upstream counters. */
    public Metrics metrics() {
        return metrics;
    }

    public Reloader reloader() {
        return reloader;
    }

    public SnapshotStore store() {
        return store;
    }

    public Transport transport() {
        return transport;
    }

    /** The UDP sockets the HTTP/3 listeners bound, all together (one per event loop and listener on io_uring and epoll). */
    public int http3Sockets() {
        return http3.stream().mapToInt(Http3Listener::sockets).sum();
    }

    boolean isReady() {
        return !stopping && !serverChannels.isEmpty();
    }

    /**
     * Stops accepting, asks every connection to finish (HTTP/2: GOAWAY; HTTP/1.1: closed when idle),
     * waits up to {@code drain} for them to close, then shuts the event loops down.
     */
    public synchronized void stop(Duration drain) {
        if (stopping) {
            return;
        }
        stopping = true;
        notifier.stopping();
        if (started) {
            LOG.info("stopping: no new connections; draining {} open connections for up to {}", connections.size(), drain);
        }
        if (services != null) {
            services.stop(); // before the listeners close: a connection accepted meanwhile drains when its handler starts
        }
        if (takeover != null) {
            takeover.close().syncUninterruptibly();
        }
        for (Channel ch : serverChannels) {
            ch.close().syncUninterruptibly();
        }
        closeAll(adopted); // inherited sockets a failed start did not reach
        ChannelGroupFuture drained = connections.newCloseFuture();
        for (Channel ch : connections) {
            ch.pipeline().fireUserEventTriggered(DrainEvent.INSTANCE);
        }
        if (!drained.awaitUninterruptibly(drain.toMillis())) {
            LOG.warn("drain timeout: closing {} connections", connections.size());
        }
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        for (Http3Listener h3 : http3) {
            h3.close(); // after the drain: the socket carries every QUIC connection
        }
        if (upstreams != null) {
            metrics.upstream().source(null);
            upstreams.close();
        }
        if (cache != null) {
            metrics.cache(null);
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (cache != null) {
            cache.store().clear(); // the stored bodies go back to the pool
        }
        clock.shutdownNow();
        if (accessLog != null) {
            accessLog.close();
        }
        reloader.close();
        store.current().release();
        notifier.close();
        if (started) {
            LOG.info("stopped");
        }
    }

    /** A destination's pool on one loop, in its cluster's protocol (the forwarder knows no protocol package). */
    private static ConnectionPool openPool(Endpoint endpoint, EventLoop loop) {
        return endpoint.protocol() == UpstreamCluster.Protocol.HTTP1
                ? new Http1UpstreamPool(endpoint, loop) : new Http2UpstreamPool(endpoint, loop);
    }
}
