package io.paduraksa.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects the errors of one load so that every one of them is reported, in file order. */
final class ErrorList {
    private static final Comparator<ConfigError> FILE_ORDER =
            Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column);

    private final String fileName;
    private final List<ConfigError> errors = new ArrayList<>();

    ErrorList(String fileName) {
        this.fileName = fileName;
    }

    void add(String path, Location at, String problem) {
        errors.add(new ConfigError(fileName, at.line(), at.column(), path, problem));
    }

    int size() {
        return errors.size();
    }

    boolean isEmpty() {
        return errors.isEmpty();
    }

    /** The errors sorted by line and column (stable: errors at one place keep the order found). */
    List<ConfigError> inFileOrder() {
        List<ConfigError> sorted = new ArrayList<>(errors);
        sorted.sort(FILE_ORDER);
        return sorted;
    }
}
