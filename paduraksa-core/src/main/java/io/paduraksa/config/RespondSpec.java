package io.paduraksa.config;

import java.util.Map;

/**
 * A precomputed answer. {@code body} may contain {@code ${request_id}}, filled per request
 * straight into the output buffer. Without a body the standard reason phrase is sent as text.
 */
public record RespondSpec(
        Integer status, String body, String contentType, String cacheControl, Map<String, String> headers) {
    public RespondSpec {
        status = status == null ? 200 : status;
        headers = headers == null ? Map.of() : SpecMaps.ordered(headers);
    }
}
