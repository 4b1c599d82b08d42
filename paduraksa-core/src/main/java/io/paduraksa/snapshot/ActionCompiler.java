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
import java.util.Objects;

/**
 * Compiles actions (respond, redirect, forward, drop) and builds every precomputed answer of a
 * snapshot, each distinct one once: 520 hosts denying with the same 403 share one buffer. Owns the
 * answers until the snapshot takes them, and frees them when the compilation fails. Compile time only.
 *
 * <p>An answer whose body is an error page (a protocol-level status answer, a {@code respond} with
 * an error status and no body) gets an {@linkplain PrecomputedResponse#errorPageSlot() error-page
 * slot}, and its recipe is kept: {@link #hostAnswers} rebuilds each slot with a host's own
 * {@code error_pages}, so the gate swaps the server-wide page for the host's by one array load.
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
    /** Recipe of error-page slot {@code i}, for the hosts' own pages. */
    private final List<PageAnswer> pageAnswers = new ArrayList<>();
    /** Set once a host took its answers: a later slot would be missing from its array. */
    private boolean slotsFixed;

    /** An error-page answer: built for {@code status} from {@code spec} (null: a protocol-level status answer). */
    private record PageAnswer(Object key, int status, RespondSpec spec, PrecomputedResponse serverWide) {
    }

    /** The cache key of a host's version of an error-page answer: hosts with the same page share it. */
    private record HostPageKey(Object key, ErrorPages.Page page) {
    }

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
        if (spec.body() == null && spec.status() >= 400) {
            return pageAnswer(spec, path, spec.status(), spec);
        }
        return cached(spec, path, () -> respondBuilder(spec, errorPages));
    }

    /** A {@code respond} answer; an error status without a body of its own gets the error page of {@code pages}, if any. */
    private static PrecomputedResponse.Builder respondBuilder(RespondSpec spec, ErrorPages pages) {
        PrecomputedResponse.Builder b = PrecomputedResponse.builder(spec.status());
        String page = spec.body() == null ? pages.text(spec.status()) : null;
        String body = spec.body() != null ? spec.body() : page != null ? page : spec.status() >= 400 ? defaultBody(spec.status()) : "";
        if (!body.isEmpty()) {
            b.header("Content-Type", spec.contentType() != null ? spec.contentType()
                    : page != null ? pages.contentType(spec.status()) : TEXT_PLAIN);
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
    }

    /** A protocol-level answer for {@code status} with the error page of {@code pages}, or the built-in page. */
    private static PrecomputedResponse.Builder statusBuilder(int status, ErrorPages pages) {
        String page = pages.text(status);
        return PrecomputedResponse.builder(status)
                .header("Content-Type", page != null ? pages.contentType(status) : TEXT_PLAIN)
                .header("Cache-Control", "no-store")
                .body(page != null ? page : defaultBody(status));
    }

    private static PrecomputedResponse.Builder pageBuilder(int status, RespondSpec spec, ErrorPages pages) {
        return spec == null ? statusBuilder(status, pages) : respondBuilder(spec, pages);
    }

    /** Builds an error-page answer once, in the next slot, and keeps its recipe for {@link #hostAnswers}. */
    private PrecomputedResponse pageAnswer(Object key, String path, int status, RespondSpec spec) {
        PrecomputedResponse existing = responses.get(key);
        if (existing != null) {
            return existing;
        }
        if (slotsFixed) {
            throw new IllegalStateException("error-page answer " + key + " made after the hosts took their answers");
        }
        int slot = pageAnswers.size();
        PrecomputedResponse built = cached(key, path, () -> pageBuilder(status, spec, errorPages).errorPageSlot(slot));
        if (built != null) {
            pageAnswers.add(new PageAnswer(key, status, spec, built));
        }
        return built;
    }

    /**
     * Every error-page answer of the snapshot as a host with {@code pages} (layered over the
     * server-wide pages) sends it, indexed by slot: the server-wide answer where the host's page is
     * the same, else a version with the host's page (hosts with equal pages share it). Call after
     * every action was compiled; errors are recorded at {@code path}.
     */
    PrecomputedResponse[] hostAnswers(ErrorPages pages, String path) {
        slotsFixed = true;
        PrecomputedResponse[] answers = new PrecomputedResponse[pageAnswers.size()];
        for (int slot = 0; slot < answers.length; slot++) {
            PageAnswer a = pageAnswers.get(slot);
            ErrorPages.Page page = pages.page(a.status());
            if (Objects.equals(page, errorPages.page(a.status()))) {
                answers[slot] = a.serverWide();
                continue;
            }
            int s = slot;
            PrecomputedResponse own = cached(new HostPageKey(a.key(), page), path,
                    () -> pageBuilder(a.status(), a.spec(), pages).errorPageSlot(s));
            answers[slot] = own != null ? own : a.serverWide();
        }
        return answers;
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
            answers[status] = pageAnswer("status:" + status, "", status, null);
        }
        return answers;
    }

    /** The server-wide error pages, under which hosts layer their own. */
    ErrorPages errorPages() {
        return errorPages;
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
