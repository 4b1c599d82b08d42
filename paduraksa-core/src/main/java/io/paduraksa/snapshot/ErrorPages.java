package io.paduraksa.snapshot;

import io.paduraksa.config.ErrorPageSpec;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.ReasonPhrases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The operator's {@code error_pages}, read once per compilation: for each status, the page text
 * (with {@code ${status}} and {@code ${reason}} already filled; {@code ${request_id}} is left for
 * the answer's template slot) and its content type. A status without its own page takes
 * {@code default}; without either, the built-in plain-text page is used. A host's
 * {@code error_pages} are layered over the server-wide ones: its page for the status, else its
 * {@code default}, else what the server-wide pages give. Compile time only.
 */
final class ErrorPages {
    static final String STATUS_VARIABLE = "${status}";
    static final String REASON_VARIABLE = "${reason}";
    /** Pages are compiled into pooled buffers once per snapshot; larger files are a mistake, not a page. */
    static final int MAX_PAGE_BYTES = 1024 * 1024;

    private final Page[] pages = new Page[600];
    private final ErrorPages parent;
    private Page fallback;

    /** One page's text before its status is filled in; equal pages compile to one shared answer. */
    record Page(String text, String contentType) {
    }

    private ErrorPages(ErrorPages parent) {
        this.parent = parent;
    }

    /** Reads the server-wide pages of {@code specs}; problems are recorded in {@code context} and the page left out. */
    static ErrorPages compile(Map<String, ErrorPageSpec> specs, CompileContext context) {
        return compile(specs, "error_pages", null, context);
    }

    /**
     * Reads the pages of {@code specs}, written at {@code path} ({@code hosts[1].error_pages}), over
     * {@code parent} (null: none); problems are recorded in {@code context} and the page left out.
     */
    static ErrorPages compile(Map<String, ErrorPageSpec> specs, String path, ErrorPages parent, CompileContext context) {
        ErrorPages result = new ErrorPages(parent);
        for (Map.Entry<String, ErrorPageSpec> e : specs.entrySet()) {
            String entryPath = pathOf(path, e.getKey());
            int status = status(e.getKey());
            if (status < 0) {
                context.error(entryPath, "'" + e.getKey() + "' is neither a status nor default (expected default or a status from 400 to 599, like \"502\")");
                continue;
            }
            Page page = page(e.getValue(), entryPath, context);
            if (page == null) {
                continue;
            }
            if (status == 0) {
                result.fallback = page;
            } else {
                result.pages[status] = page;
            }
        }
        return result;
    }

    /** The page text for {@code status} with its variables filled (but {@code ${request_id}}), or null. */
    String text(int status) {
        Page p = page(status);
        if (p == null) {
            return null;
        }
        return p.text.replace(STATUS_VARIABLE, Integer.toString(status)).replace(REASON_VARIABLE, ReasonPhrases.of(status));
    }

    /** The content type of the page for {@code status}; call only when {@link #text} is not null. */
    String contentType(int status) {
        return page(status).contentType;
    }

    /** The page {@code status} gets (null: the built-in one); the same object for the same configured page. */
    Page page(int status) {
        if (status < 400 || status > 599) {
            return null;
        }
        Page p = pages[status];
        if (p == null) {
            p = fallback;
        }
        return p != null || parent == null ? p : parent.page(status);
    }

    private static Page page(ErrorPageSpec spec, String path, CompileContext context) {
        if ((spec.body() == null) == (spec.bodyFile() == null)) {
            context.error(path, (spec.body() == null ? "no page" : "both body and body_file") + " (expected exactly one of: body, body_file)");
            return null;
        }
        String text = spec.body();
        if (text == null) {
            text = read(spec.bodyFile(), path + ".body_file", context);
            if (text == null) {
                return null;
            }
        }
        int first = text.indexOf(PrecomputedResponse.REQUEST_ID_VARIABLE);
        if (first >= 0 && text.indexOf(PrecomputedResponse.REQUEST_ID_VARIABLE, first + 1) >= 0) {
            context.error(path, "the page contains " + PrecomputedResponse.REQUEST_ID_VARIABLE + " more than once (expected it at most once)");
            return null;
        }
        return new Page(text, spec.contentType());
    }

    private static String read(String file, String path, CompileContext context) {
        Path resolved = context.resolve(file);
        try {
            if (Files.size(resolved) > MAX_PAGE_BYTES) {
                context.error(path, "'" + resolved + "' is larger than 1 MiB (expected a page of at most 1 MiB)");
                return null;
            }
            return Files.readString(resolved, StandardCharsets.UTF_8);
        } catch (IOException e) {
            context.error(path, "cannot read '" + resolved + "': " + e.getMessage() + " (expected a readable UTF-8 file)");
            return null;
        }
    }

    /** 0 for {@code default}, the status for "400".."599", else -1. */
    private static int status(String key) {
        if (key.equals("default")) {
            return 0;
        }
        if (key.length() != 3) {
            return -1;
        }
        int status = 0;
        for (int i = 0; i < 3; i++) {
            char c = key.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            status = status * 10 + (c - '0');
        }
        return status >= 400 && status <= 599 ? status : -1;
    }

    private static String pathOf(String path, String key) {
        return key.chars().allMatch(Character::isLetterOrDigit) ? path + "." + key : path + "[\"" + key + "\"]";
    }
}
