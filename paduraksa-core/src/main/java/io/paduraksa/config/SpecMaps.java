package io.paduraksa.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Keeps the operator's order of map keys (error messages and explain output follow the file). */
final class SpecMaps {
    private SpecMaps() {
    }

    static <V> Map<String, V> ordered(Map<String, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
