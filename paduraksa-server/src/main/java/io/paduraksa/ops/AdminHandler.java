package io.paduraksa.ops;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The admin listener (loopback by default): {@code /healthz} (alive), {@code /ready} (config loaded
 * and listeners bound), {@code /metrics} (Prometheus text), {@code /config} (which snapshot is
 * serving, and the last reload error), {@code /status} (also {@code /}: an HTML page for people)
 * and {@code /status.json} (its figures), and {@code POST /cache/purge} (removes stored responses:
 * {@code host}, {@code path} and {@code prefix=true} in the query narrow it). Not on the request
 * path: it uses Netty's stock codec. One handler serves all admin connections (it keeps no
 * per-connection state).
 */
@ChannelHandler.Sharable
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final SnapshotStore store;
    private final Reloader reloader;
    private final BooleanSupplier ready;
    private final Metrics metrics;
    private final Supplier<Map<String, InetSocketAddress>> bound;

    AdminHandler(SnapshotStore store, Reloader reloader, BooleanSupplier ready, Metrics metrics,
                 Supplier<Map<String, InetSocketAddress>> bound) {
        this.store = store;
        this.reloader = reloader;
        this.ready = ready;
        this.metrics = metrics;
        this.bound = bound;
    }

    /** The admin listener's pipeline. */
    public static final class Initializer extends ChannelInitializer<Channel> {
        private final AdminHandler handler;

        /**
         * @param metrics the server's counters
         * @param bound   the listeners' bound addresses, by name (for the status page)
         */
        public Initializer(SnapshotStore store, Reloader reloader, BooleanSupplier ready, Metrics metrics,
                           Supplier<Map<String, InetSocketAddress>> bound) {
            this.handler = new AdminHandler(store, reloader, ready, metrics, bound);
        }

        @Override
        protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec(4096, 8192, 8192), new HttpObjectAggregator(64 * 1024),
                    handler);
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
            case "/metrics" -> text(HttpResponseStatus.OK, MetricsText.render(metrics, reloader),
                    "text/plain; version=0.0.4; charset=utf-8");
            case "/", "/status" -> text(HttpResponseStatus.OK, StatusPage.HTML, "text/html; charset=utf-8");
            case "/status.json" -> text(HttpResponseStatus.OK, StatusPage.json(metrics, reloader, bound.get()), "application/json");
            case "/config" -> text(HttpResponseStatus.OK, config(), "application/json");
            case "/cache/purge" -> purge(request);
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

    /** {@code POST /cache/purge?host=H&path=P&prefix=true}: each parameter optional; without any, everything goes. */
    private FullHttpResponse purge(FullHttpRequest request) {
        CacheAdmin cache = metrics.cache();
        if (cache == null) {
            return text(HttpResponseStatus.NOT_FOUND, "no response cache\n", "text/plain; charset=utf-8");
        }
        if (!HttpMethod.POST.equals(request.method())) {
            FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST\n", "text/plain; charset=utf-8");
            r.headers().set(HttpHeaderNames.ALLOW, "POST");
            return r;
        }
        QueryStringDecoder q = new QueryStringDecoder(request.uri());
        String host = first(q, "host");
        String path = first(q, "path");
        boolean prefix = "true".equals(first(q, "prefix"));
        long n = cache.purge(host, path, prefix);
        return text(HttpResponseStatus.OK, "{\"purged\":" + n + "}\n", "application/json");
    }

    private static String first(QueryStringDecoder q, String name) {
        List<String> values = q.parameters().get(name);
        return values == null || values.isEmpty() || values.get(0).isEmpty() ? null : values.get(0);
    }

    private String config() {
        Snapshot s = store.current();
        String error = reloader.lastError();
        return "{\"generation\":" + s.generation()
                + ",\"file\":" + Json.string(s.sourceName())
                + ",\"sha256\":" + Json.string(s.sourceSha256())
                + ",\"compiled_at\":" + Json.string(s.compiledAt().toString())
                + ",\"last_reload_error\":" + (error == null ? "null" : Json.string(error)) + "}\n";
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
