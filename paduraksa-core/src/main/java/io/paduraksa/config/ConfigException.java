package io.paduraksa.config;

import java.util.List;

/** A configuration that cannot be used, with every error found in it (never just the first). */
public final class ConfigException extends Exception {
    private final List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(render(errors));
        this.errors = List.copyOf(errors);
    }

    public List<ConfigError> errors() {
        return errors;
    }

    private static String render(List<ConfigError> errors) {
        StringBuilder sb = new StringBuilder();
        sb.append(errors.size()).append(errors.size() == 1 ? " configuration error" : " configuration errors");
        for (ConfigError e : errors) {
            sb.append('\n').append(e);
        }
        return sb.toString();
    }
}
