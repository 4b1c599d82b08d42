package io.paduraksa.server;

import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ListenerSpec;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.server.connection.TlsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads every TLS listener's certificates once, so that {@code check} and start-up report a broken
 * PEM file the way every other configuration error is reported: file, line, column and YAML path.
 */
final class TlsCheck {
    private TlsCheck() {
    }

    static List<ConfigError> errors(LoadedConfig config) {
        List<ConfigError> errors = new ArrayList<>();
        List<ListenerSpec> listeners = config.spec().listeners();
        for (int i = 0; i < listeners.size(); i++) {
            ListenerSpec l = listeners.get(i);
            if (l.tls() == null || l.admin()) {
                continue;
            }
            try {
                EdgeServer.tls(l, EdgeServer.configDirectory(Path.of(config.fileName())));
            } catch (TlsException e) {
                String path = "listeners[" + i + "].tls" + (e.certificateIndex() == TlsException.CLIENT_CA
                        ? ".client_ca" : ".certificates[" + e.certificateIndex() + "].cert");
                errors.add(config.error(path, e.getMessage()));
            }
        }
        return errors;
    }
}
