package io.paduraksa.ops;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The admin listener (loopback by default): {@code /healthz} (alive), {@code /ready} (config loaded
 * and listeners bound), {@code /metrics} (Prometheus text) and {@code /config} (which snapshot is
 * serving, and the last reload error). Not on the request path: it uses Netty's stock codec.
 */
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final SnapshotStore store;
    private final Reloader reloader;
    private final BooleanSupplier ready;

    AdminHandler(SnapshotStore store, Reloader reloader, BooleanSupplier ready) {
        this.store = store;
        this.reloader = reloader;
        this.ready = ready;
    }

    /** The admin listener's pipeline. */
    public static final class Initializer extends ChannelInitializer<Channel> {
        private final SnapshotStore store;
        private final Reloader reloader;
        private final BooleanSupplier ready;

        public Initializer(SnapshotStore store, Reloader reloader, BooleanSupplier ready) {
            this.store = store;
            this.reloader = reloader;
            this.ready = ready;
        }

        @Override
        protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec(4096, 8192, 8192), new HttpObjectAggregator(64 * 1024),
                    new AdminHandler(store, reloader, ready));
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String path = request.uri();
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        FullHttpResponse response = switch (path) {
            case "/healthz" -> text(HttpResponseStatus.OK, "ok\n", "text/plain; charset=utf-8");
            case "/ready" -> ready.getAsBoolean()
                    ? text(HttpResponseStatus.OK, "ready\n", "text/plain; charset=utf-8")
                    : text(HttpResponseStatus.SERVICE_UNAVAILABLE, "not ready\n", "text/plain; charset=utf-8");
            case "/metrics" -> text(HttpResponseStatus.OK, metrics(), "text/plain; version=0.0.4; charset=utf-8");
            case "/config" -> text(HttpResponseStatus.OK, config(), "application/json");
            default -> text(HttpResponseStatus.NOT_FOUND, "not found\n", "text/plain; charset=utf-8");
        };
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private String metrics() {
        Snapshot s = store.current();
        StringBuilder sb = new StringBuilder(1024);
        counter(sb, "paduraksa_jvm_allocated_bytes_total", "Bytes allocated by all JVM threads since start.",
                THREADS.getTotalThreadAllocatedBytes());
        gauge(sb, "paduraksa_config_generation", "Generation of the snapshot serving requests.", s.generation());
        counter(sb, "paduraksa_reloads_total", "Successful reloads.", reloader.reloads());
        counter(sb, "paduraksa_reload_failures_total", "Rejected reloads (the running snapshot stayed).", reloader.failures());
        gauge(sb, "paduraksa_hosts", "Host entries in the serving snapshot.", s.hostList().size());
        return sb.toString();
    }

    private static void counter(StringBuilder sb, String name, String help, long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(value).append('\n');
    }

    private static void gauge(StringBuilder sb, String name, String help, long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
                .append(name).append(' ').append(value).append('\n');
    }

    private String config() {
        Snapshot s = store.current();
        String error = reloader.lastError();
        return "{\"generation\":" + s.generation()
                + ",\"file\":" + json(s.sourceName())
                + ",\"sha256\":" + json(s.sourceSha256())
                + ",\"compiled_at\":" + json(s.compiledAt().toString())
                + ",\"last_reload_error\":" + (error == null ? "null" : json(error)) + "}\n";
    }

    private static String json(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body, String contentType) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        return r;
    }
}
