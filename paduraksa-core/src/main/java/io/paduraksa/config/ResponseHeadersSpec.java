package io.paduraksa.config;

import java.util.List;
import java.util.Map;

/**
 * Response headers to set (replacing what the upstream sent under that name) and to remove, as
 * {@code forwarding.response_headers} (defaults) or a host's {@code response_headers} (merged over them).
 */
public record ResponseHeadersSpec(Map<String, String> set, List<String> remove) {
    public static final ResponseHeadersSpec EMPTY = new ResponseHeadersSpec(null, null);

    public ResponseHeadersSpec {
        set = set == null ? Map.of() : SpecMaps.ordered(set);
        remove = remove == null ? List.of() : List.copyOf(remove);
    }
}
