package io.paduraksa.config;

/** A redirect to a fixed location; status 301, 302 (default), 303, 307 or 308. */
public record RedirectSpec(String location, Integer status) {
    public RedirectSpec {
        status = status == null ? 302 : status;
    }
}
