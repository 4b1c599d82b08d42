package io.paduraksa.snapshot;

import io.netty.buffer.ByteBufAllocator;
import io.paduraksa.config.ActionSpec;
import io.paduraksa.config.RedirectSpec;
import io.paduraksa.config.RespondSpec;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.ReasonPhrases;
import io.paduraksa.respond.ValueTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles actions (respond, redirect, forward, drop) and builds every precomputed answer of a
 * snapshot, each distinct one once: 520 hosts denying with the same 403 share one buffer. Owns the
 * answers until the snapshot takes them, and frees them when the compilation fails. Compile time only.
 */
final class ActionCompiler {
    /** Protocol-level answers every snapshot carries (see {@link Snapshot#statusAnswer}). */
    static final int[] STATUS_ANSWERS = {400, 403, 404, 405, 408, 413, 414, 421, 429, 431, 500, 501, 502, 503, 504, 505};

    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";

    private final CompileContext context;
    private final ByteBufAllocator alloc;
    private final Map<String, UpstreamCluster> clusters;
    private final Map<Object, PrecomputedResponse> responses = new HashMap<>();
    private final List<PrecomputedResponse> owned = new ArrayList<>();
    private final ErrorPages errorPages;

    ActionCompiler(CompileContext context, ByteBufAllocator alloc, Map<String, UpstreamCluster> clusters) {
        this.context = context;
        this.alloc = alloc;
        this.clusters = clusters;
        this.errorPages = ErrorPages.compile(context.config().spec().errorPages(), context);
    }

    /** Every answer built so far; the snapshot releases them when it is retired. */
    List<PrecomputedResponse> owned() {
        return owned;
    }

    /** Frees every answer built so far (the compilation failed). */
    void releaseAll() {
        Map<PrecomputedResponse, Boolean> seen = new IdentityHashMap<>();
        for (PrecomputedResponse p : owned) {
            if (seen.put(p, Boolean.TRUE) == null) {
                p.release();
            }
        }
        owned.clear();
    }


    /** Compiles an action, or records why it cannot be; {@code mayForward} is false for policy denials. */
    CompiledAction action(ActionSpec spec, String path, boolean mayForward) {
        int count = spec.actionCount();
        if (count != 1) {
            context.error(path, (count == 0 ? "no action" : "more than one action")
                    + " (expected exactly one of: respond, redirect, " + (mayForward ? "forward, " : "") + "drop)");
            return null;
        }
        if (spec.forward() != null) {
            if (!mayForward) {
                context.error(path + ".forward", "a policy denial cannot forward (expected respond, redirect or drop)");
                return null;
            }
            UpstreamCluster cluster = clusters.get(spec.forward());
            if (cluster == null) {
                context.error(path + ".forward", "unknown cluster '" + spec.forward() + "' (expected one of: " + CompileContext.known(context.config().spec().clusters()) + ")");
                return null;
            }
            return CompiledAction.forward(cluster);
        }
        if (spec.drop()) {
            return CompiledAction.drop();
        }
        PrecomputedResponse response = spec.respond() != null
                ? respond(spec.respond(), path + ".respond")
                : redirect(spec.redirect(), path + ".redirect");
        return response == null ? null : CompiledAction.respond(response);
    }

    private PrecomputedResponse respond(RespondSpec spec, String path) {
        if (spec.status() < 200 || spec.status() > 599) {
            context.error(path + ".status", "status " + spec.status() + " cannot be an answer (expected 200-599)");
            return null;
        }
        return cached(spec, path, () -> {
            PrecomputedResponse.Builder b = PrecomputedResponse.builder(spec.status());
            // An error status without a body of its own gets the operator's error page, if any.
            String page = spec.body() == null ? errorPages.text(spec.status()) : null;
            String body = spec.body() != null ? spec.body() : page != null ? page : spec.status() >= 400 ? defaultBody(spec.status()) : "";
            if (!body.isEmpty()) {
                b.header("Content-Type", spec.contentType() != null ? spec.contentType()
                        : page != null ? errorPages.contentType(spec.status()) : TEXT_PLAIN);
            }
            if (spec.cacheControl() != null) {
                b.header("Cache-Control", spec.cacheControl());
            } else if (spec.body() == null && spec.status() >= 400) {
                // A generated error page must not be cached by a CDN in front of us.
                b.header("Cache-Control", "no-store");
            }
            for (Map.Entry<String, String> h : spec.headers().entrySet()) {
                b.header(h.getKey(), h.getValue());
            }
            return b.body(body);
        });
    }

    private PrecomputedResponse redirect(RedirectSpec spec, String path) {
        int s = spec.status();
        if (s != 301 && s != 302 && s != 303 && s != 307 && s != 308) {
            context.error(path + ".status", "status " + s + " is not a redirect (expected 301, 302, 303, 307 or 308)");
            return null;
        }
        if (spec.location() == null || spec.location().isEmpty()) {
            context.error(path + ".location", "a redirect needs a location (expected a URL or an absolute path)");
            return null;
        }
        String location = spec.location();
        if (ValueTemplate.hasPlaceholder(location)) {
            ValueTemplate template;
            try {
                template = ValueTemplate.compile(location);
            } catch (IllegalArgumentException e) {
                context.error(path + ".location", e.getMessage());
                return null;
            }
            return cached(spec, path + ".location", () -> PrecomputedResponse.builder(s).header("Location", template).body(""));
        }
        return cached(spec, path + ".location", () -> PrecomputedResponse.builder(s).header("Location", location).body(""));
    }

    /**
     * Builds an answer that is no action (a challenge page), owned and released with the snapshot
     * like the others; null, with the error recorded, when it cannot be built.
     */
    PrecomputedResponse own(Object key, String path, PrecomputedResponse.Builder builder) {
        return cached(key, path, () -> builder);
    }

    /** The allocator answers are built from (policies build their one-shot answers from it too). */
    ByteBufAllocator alloc() {
        return alloc;
    }

    PrecomputedResponse[] statusAnswers() {
        PrecomputedResponse[] answers = new PrecomputedResponse[600];
        for (int status : STATUS_ANSWERS) {
            String page = errorPages.text(status);
            answers[status] = cached("status:" + status, "", () -> PrecomputedResponse.builder(status)
                    .header("Content-Type", page != null ? errorPages.contentType(status) : TEXT_PLAIN)
                    .header("Cache-Control", "no-store")
                    .body(page != null ? page : defaultBody(status)));
        }
        return answers;
    }

    /** Builds each distinct answer once: 520 hosts denying with the same 403 share one buffer. */
    private PrecomputedResponse cached(Object key, String path, ResponseRecipe recipe) {
        PrecomputedResponse existing = responses.get(key);
        if (existing != null) {
            return existing;
        }
        try {
            PrecomputedResponse built = recipe.builder().build(alloc);
            owned.add(built);
            responses.put(key, built);
            return built;
        } catch (IllegalArgumentException e) {
            context.error(path, e.getMessage());
            return null;
        }
    }

    private static String defaultBody(int status) {
        return status + " " + ReasonPhrases.of(status) + "\nrequest id: " + PrecomputedResponse.REQUEST_ID_VARIABLE + "\n";
    }

    @FunctionalInterface
    private interface ResponseRecipe {
        PrecomputedResponse.Builder builder();
    }
}
