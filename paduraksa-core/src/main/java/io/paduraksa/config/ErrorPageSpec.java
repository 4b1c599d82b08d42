package io.paduraksa.config;

/**
 * The page for answers Paduraksa produces itself with one status (or, under {@code default}, with
 * every status that has no page of its own): the text in {@code body}, or read from {@code body_file}
 * when the configuration is loaded. {@code ${status}} and {@code ${reason}} are filled in once, then;
 * {@code ${request_id}} is filled per answer.
 */
public record ErrorPageSpec(String body, String bodyFile, String contentType) {
    public static final String DEFAULT_CONTENT_TYPE = "text/html; charset=utf-8";

    public ErrorPageSpec {
        contentType = contentType == null ? DEFAULT_CONTENT_TYPE : contentType;
    }
}
