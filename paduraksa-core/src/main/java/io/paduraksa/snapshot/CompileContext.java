package io.paduraksa.snapshot;

import io.paduraksa.config.ConfigError;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.net.IpRangeSet;
import io.paduraksa.route.PathNormalizer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What the parts of one compilation share: the loaded file (for error positions), the errors found
 * so far, and the checks more than one part needs (CIDR lists, path prefixes). Compile time only.
 */
final class CompileContext {
    private final LoadedConfig config;
    private final List<ConfigError> errors = new ArrayList<>();

    CompileContext(LoadedConfig config) {
        this.config = config;
    }

    LoadedConfig config() {
        return config;
    }

    /** A path from the configuration, relative to the configuration file's directory. */
    Path resolve(String configured) {
        Path p = Path.of(configured);
        Path parent = Path.of(config.fileName()).toAbsolutePath().getParent();
        return p.isAbsolute() || parent == null ? p : parent.resolve(p);
    }

    void error(String path, String problem) {
        errors.add(config.error(path, problem));
    }

    boolean hasErrors() {
        return !errors.isEmpty();
    }

    /** The errors in file order, like the binding pass, whatever order the sections were compiled in. */
    List<ConfigError> errorsInFileOrder() {
        errors.sort(Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column));
        return errors;
    }

    IpRangeSet ranges(List<String> cidrs, String path) {
        IpRangeSet.Builder b = IpRangeSet.builder();
        addRanges(b, cidrs, path);
        return b.build();
    }

    void addRanges(IpRangeSet.Builder b, List<String> cidrs, String path) {
        for (int i = 0; i < cidrs.size(); i++) {
            try {
                b.add(cidrs.get(i));
            } catch (IllegalArgumentException e) {
                error(path + "[" + i + "]", e.getMessage());
            }
        }
    }



    /** Why {@code prefix} cannot be a route or policy prefix, or null when it can. */
    static String prefixProblem(String prefix) {
        if (prefix == null || !prefix.startsWith("/")) {
            return "'" + prefix + "' is not a path prefix (expected it to start with /)";
        }
        byte[] out = new byte[prefix.length() * 3 + 1];
        int length = PathNormalizer.normalize(prefix, 0, prefix.length(), out, 0);
        if (length < 0) {
            return "'" + prefix + "' is not a valid path: " + PathNormalizer.describe(length);
        }
        if (!new String(out, 0, length, StandardCharsets.US_ASCII).equals(prefix)) {
            return "'" + prefix + "' is not in normal form (expected '" + new String(out, 0, length, StandardCharsets.US_ASCII)
                    + "': prefixes are matched against normalised paths)";
        }
        return null;
    }



    /** The defined names, for "(expected one of: ...)". */
    static String known(Map<String, ?> names) {
        return names.isEmpty() ? "none defined" : String.join(", ", new TreeSet<>(names.keySet()));
    }
}
