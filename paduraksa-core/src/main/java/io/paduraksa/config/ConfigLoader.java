package io.paduraksa.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the operator's YAML file into a {@link PaduraksaSpec}: the binding pass of the two (the
 * snapshot compiler is the other). One streaming pass over Jackson's YAML tokens builds the tree
 * and the {@link YamlPositions}; the binder then checks every key and value against the
 * {@code *Spec} records. All errors found are reported together, in file order, each as
 * {@code file:line:column: yaml.path: problem (expected ...)}.
 *
 * <p>Runs at start-up, for {@code paduraksa check} and on reload, off the event loops. Nothing
 * here touches the running snapshot.
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * Loads {@code file} (UTF-8); its name in errors is the path as given.
     *
     * @throws IOException     the file cannot be read, or is not UTF-8
     * @throws ConfigException with every binding error in the file
     */
    public static LoadedConfig load(Path file) throws IOException, ConfigException {
        return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * Binds {@code yamlText}; {@code fileName} is only used in error messages.
     *
     * @throws ConfigException with every binding error in the text, in file order
     */
    public static LoadedConfig parse(String fileName, String yamlText) throws ConfigException {
        String text = !yamlText.isEmpty() && yamlText.charAt(0) == '\uFEFF' ? yamlText.substring(1) : yamlText;
        ErrorList errors = new ErrorList(fileName);
        YamlReader.Result read = YamlReader.read(text, errors);
        PaduraksaSpec spec = null;
        if (read.root() == null && !read.syntaxError()) {
            errors.add(YamlPath.ROOT, Location.START,
                    "the file has no configuration (expected a mapping with keys such as listeners, clusters, hosts)");
        } else if (read.root() != null) {
            spec = SpecBinder.bind(read.root(), errors);
        }
        if (!errors.isEmpty() || spec == null) {
            throw new ConfigException(errors.inFileOrder());
        }
        return new LoadedConfig(fileName, text, spec, read.positions());
    }
}
