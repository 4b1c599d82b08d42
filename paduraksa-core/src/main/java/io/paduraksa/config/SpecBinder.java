package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonToken;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binding pass: walks the {@link YamlNode} tree against the {@code *Spec} records and builds
 * them, recording every problem instead of stopping at the first (Jackson's databind stops at its
 * first exception, and its messages name Java types). Record components map to snake_case keys
 * ({@code clientIp} is {@code client_ip}) unless {@link JsonProperty} names them; a sealed
 * interface with {@link JsonTypeInfo} and {@link JsonSubTypes} is chosen by its type key.
 * Value rules beyond the Java type (ranges, URLs, addresses) live in {@link SpecChecks}.
 *
 * <p>Runs at start-up, for {@code check} and on reload, off the event loops; allocates freely.
 */
final class SpecBinder {
    private static final ClassValue<RecordShape> SHAPES = new ClassValue<>() {
        @Override
        protected RecordShape computeValue(Class<?> type) {
            return RecordShape.of(type);
        }
    };

    private final ErrorList errors;

    private SpecBinder(ErrorList errors) {
        this.errors = errors;
    }

    /** Binds the document; null when it is not a mapping (the error is recorded). */
    static PaduraksaSpec bind(YamlNode root, ErrorList errors) {
        SpecBinder binder = new SpecBinder(errors);
        if (!(root instanceof YamlNode.Mapping)) {
            errors.add(YamlPath.ROOT, root.at(), "found " + root.describe()
                    + " (expected a mapping with keys: " + String.join(", ", SHAPES.get(PaduraksaSpec.class).keys) + ")");
            return null;
        }
        return (PaduraksaSpec) binder.bind(root, PaduraksaSpec.class, YamlPath.ROOT, null);
    }

    /** Where a value sits in its record, for the value rules and expectations of {@link SpecChecks}. */
    record Slot(Class<?> owner, String component) {
    }

    private Object bind(YamlNode node, Type type, String path, Slot slot) {
        if (node instanceof YamlNode.Scalar s && (s.isNull() || s.alias())) {
            return null;
        }
        Class<?> raw = rawClass(type);
        if (raw == List.class) {
            return bindList(node, elementType(type, 0), path, slot);
        }
        if (raw == Map.class) {
            return bindMap(node, elementType(type, 1), path, slot);
        }
        if (raw.isRecord() && raw != DataSize.class && raw != Share.class) {
            return node instanceof YamlNode.Mapping m ? bindRecord(m, raw, path, null) : mismatch(node, path, "a mapping");
        }
        if (raw.isInterface() && raw.isAnnotationPresent(JsonTypeInfo.class)) {
            return node instanceof YamlNode.Mapping m ? bindTyped(m, raw, path) : mismatch(node, path, "a mapping");
        }
        if (!(node instanceof YamlNode.Scalar scalar)) {
            return mismatch(node, path, expectedScalar(raw, slot));
        }
        return bindScalar(scalar, raw, path, slot);
    }

    private Object mismatch(YamlNode node, String path, String expected) {
        errors.add(path, node.at(), "found " + node.describe() + " (expected " + expected + ")");
        return null;
    }

    private List<Object> bindList(YamlNode node, Type itemType, String path, Slot slot) {
        if (!(node instanceof YamlNode.Sequence seq)) {
            mismatch(node, path, describeType(List.class, slot));
            return null;
        }
        List<Object> items = new ArrayList<>(seq.items().size());
        for (int i = 0; i < seq.items().size(); i++) {
            YamlNode item = seq.items().get(i);
            String itemPath = YamlPath.index(path, i);
            Object value = bind(item, itemType, itemPath, slot);
            if (value == null && item instanceof YamlNode.Scalar s && s.isNull()) {
                mismatch(item, itemPath, describeType(itemType, slot));
            }
            if (value != null) {
                items.add(value);
            }
        }
        return items;
    }

    private Map<String, Object> bindMap(YamlNode node, Type valueType, String path, Slot slot) {
        if (!(node instanceof YamlNode.Mapping mapping)) {
            mismatch(node, path, "a mapping");
            return null;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (YamlNode.Entry e : mapping.entries().values()) {
            String entryPath = YamlPath.key(path, e.key());
            Object value = bind(e.value(), valueType, entryPath, slot);
            if (value == null && e.value() instanceof YamlNode.Scalar s && s.isNull()) {
                mismatch(e.value(), entryPath, describeType(valueType, slot));
            }
            if (value != null) {
                map.put(e.key(), value);
            }
        }
        return map;
    }

    /** A sealed interface chosen by a type key, e.g. {@code policies.office: {type: ip, ...}}. */
    private Object bindTyped(YamlNode.Mapping mapping, Class<?> base, String path) {
        String property = base.getAnnotation(JsonTypeInfo.class).property();
        Map<String, Class<?>> subtypes = new LinkedHashMap<>();
        for (JsonSubTypes.Type t : base.getAnnotation(JsonSubTypes.class).value()) {
            subtypes.put(t.name(), t.value());
        }
        String typePath = YamlPath.key(path, property);
        String expected = "expected one of: " + String.join(", ", subtypes.keySet());
        YamlNode.Entry typeEntry = mapping.entries().get(property);
        if (typeEntry == null || typeEntry.value() instanceof YamlNode.Scalar s && s.isNull()) {
            errors.add(typePath, mapping.at(), "missing '" + property + "' (" + expected + ")");
            return null;
        }
        Class<?> subtype = typeEntry.value() instanceof YamlNode.Scalar s ? subtypes.get(s.text()) : null;
        if (subtype == null) {
            String prefix = typeEntry.value() instanceof YamlNode.Scalar ? "unknown " + property + " " : "found ";
            errors.add(typePath, typeEntry.value().at(), prefix + typeEntry.value().describe() + " (" + expected + ")");
            return null;
        }
        return bindRecord(mapping, subtype, path, property);
    }

    private Object bindRecord(YamlNode.Mapping mapping, Class<?> type, String path, String typeKey) {
        RecordShape shape = SHAPES.get(type);
        int errorsBefore = errors.size();
        reportUnknownKeys(mapping, shape, path, typeKey);
        Object[] args = new Object[shape.keys.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = bindComponent(mapping, shape, i, path);
        }
        SpecChecks.checkRecord(type, mapping, shape.keys, args, path, errors);
        if (errors.size() > errorsBefore) {
            return null;
        }
        return shape.construct(args);
    }

    private Object bindComponent(YamlNode.Mapping mapping, RecordShape shape, int i, String path) {
        String key = shape.keys.get(i);
        String componentPath = YamlPath.key(path, key);
        Slot slot = new Slot(shape.type, shape.components[i].getName());
        YamlNode.Entry entry = mapping.entries().get(key);
        Object value = entry == null ? null : bind(entry.value(), shape.components[i].getGenericType(), componentPath, slot);
        if (value == null && SpecChecks.isRequired(slot) && (entry == null || isNull(entry.value()))) {
            Location at = entry == null ? mapping.at() : entry.value().at();
            errors.add(componentPath, at, "missing (expected " + describeType(shape.components[i].getGenericType(), slot) + ")");
        }
        if (value != null) {
            SpecChecks.check(slot, entry.value(), value, componentPath, errors);
        }
        if (value == null && shape.components[i].getType() == boolean.class) {
            return Boolean.FALSE;
        }
        return value;
    }

    private void reportUnknownKeys(YamlNode.Mapping mapping, RecordShape shape, String path, String typeKey) {
        for (YamlNode.Entry e : mapping.entries().values()) {
            if (shape.keys.contains(e.key()) || e.key().equals(typeKey)) {
                continue;
            }
            String suggestion = NearestKey.of(e.key(), shape.keys);
            String problem = suggestion != null
                    ? "unknown key (did you mean '" + suggestion + "'?)"
                    : "unknown key (expected one of: " + String.join(", ", shape.keys) + ")";
            errors.add(YamlPath.key(path, e.key()), e.keyAt(), problem);
        }
    }

    private static boolean isNull(YamlNode node) {
        return node instanceof YamlNode.Scalar s && s.isNull();
    }

    private Object bindScalar(YamlNode.Scalar s, Class<?> type, String path, Slot slot) {
        Object value = convert(s, type);
        if (value == null) {
            errors.add(path, s.at(), "found " + s.describe() + " (expected " + expectedScalar(type, slot) + ")");
        } else if (value instanceof Duration d && (d.isZero() && !SpecChecks.allowsZeroDuration(slot) || d.isNegative())) {
            errors.add(path, s.at(), "found " + s.describe() + ", a duration must be positive (" + DurationText.EXPECTED + ")");
            return null;
        }
        return value;
    }

    /** The scalar as {@code type}, or null when it is not one. */
    private static Object convert(YamlNode.Scalar s, Class<?> type) {
        if (type == String.class) {
            return s.text();
        }
        if (type == Integer.class || type == int.class) {
            Long n = integer(s);
            return n != null && n == n.intValue() ? Integer.valueOf(n.intValue()) : null;
        }
        if (type == Long.class || type == long.class) {
            return integer(s);
        }
        if (type == Boolean.class || type == boolean.class) {
            return s.token() == JsonToken.VALUE_TRUE ? Boolean.TRUE : s.token() == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
        }
        if (type == Duration.class) {
            return s.token() == JsonToken.VALUE_STRING ? DurationText.parse(s.text()) : null;
        }
        if (type == DataSize.class) {
            Long n = integer(s);
            return n != null ? (n >= 0 ? new DataSize(n) : null) : DataSize.parseOrNull(stripPerSecond(s.text()));
        }
        if (type == URI.class) {
            return uri(s.text());
        }
        if (type == Share.class) {
            return Share.parseOrNull(s.text());
        }
        throw new IllegalStateException("no YAML binding for " + type);
    }

    /** A rate such as {@code body_min_rate: 1KiB/s} is a size per second; the suffix is optional. */
    private static String stripPerSecond(String text) {
        return text.endsWith("/s") ? text.substring(0, text.length() - 2) : text;
    }

    private static Long integer(YamlNode.Scalar s) {
        if (s.number() != null) {
            return s.number() instanceof BigInteger || !(s.number() instanceof Integer || s.number() instanceof Long)
                    ? null : s.number().longValue();
        }
        if (s.token() != JsonToken.VALUE_STRING || s.text().isEmpty() || s.text().length() > 18) {
            return null;
        }
        for (int i = 0; i < s.text().length(); i++) {
            char c = s.text().charAt(i);
            if ((c < '0' || c > '9') && !(i == 0 && c == '-' && s.text().length() > 1)) {
                return null;
            }
        }
        return Long.parseLong(s.text());
    }

    private static URI uri(String text) {
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    private static String expectedScalar(Class<?> type, Slot slot) {
        String specific = slot == null ? null : SpecChecks.expected(slot);
        return specific != null ? specific : describeType(type, null);
    }

    static String describeType(Type type, Slot slot) {
        String specific = slot == null ? null : SpecChecks.expected(slot);
        Class<?> raw = rawClass(type);
        if (raw == List.class) {
            return specific != null ? "a list of " + specific : "a list";
        }
        if (raw == Map.class) {
            return "a mapping";
        }
        if (specific != null) {
            return specific;
        }
        if (raw == String.class) {
            return "a string";
        }
        if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class) {
            return "an integer";
        }
        if (raw == Boolean.class || raw == boolean.class) {
            return "true or false";
        }
        if (raw == Duration.class) {
            return DurationText.EXPECTED.substring("expected ".length());
        }
        if (raw == DataSize.class) {
            return DataSize.EXPECTED.substring("expected ".length());
        }
        if (raw == Share.class) {
            return Share.EXPECTED.substring("expected ".length());
        }
        if (raw == URI.class) {
            return "a URL";
        }
        return "a mapping";
    }

    private static Class<?> rawClass(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    private static Type elementType(Type type, int index) {
        return ((ParameterizedType) type).getActualTypeArguments()[index];
    }

    /** A record's YAML keys in component order and its canonical constructor. */
    private static final class RecordShape {
        final Class<?> type;
        final RecordComponent[] components;
        final List<String> keys;
        final Constructor<?> constructor;

        private RecordShape(Class<?> type, RecordComponent[] components, List<String> keys, Constructor<?> constructor) {
            this.type = type;
            this.components = components;
            this.keys = keys;
            this.constructor = constructor;
        }

        static RecordShape of(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            List<String> keys = new ArrayList<>(components.length);
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                keys.add(yamlKey(components[i]));
                types[i] = components[i].getType();
            }
            try {
                return new RecordShape(type, components, List.copyOf(keys), type.getDeclaredConstructor(types));
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("record without canonical constructor: " + type, e);
            }
        }

        Object construct(Object[] args) {
            try {
                return constructor.newInstance(args);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("cannot build " + type.getSimpleName(), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
            }
        }

    }

    /**
     * The YAML key of a record component: its {@link JsonProperty} name if it has one, else its name
     * in snake_case ({@code clientIp} is {@code client_ip}). Package-private for the tests that walk
     * the model the same way (the configuration reference and the JSON schema checks).
     */
    static String yamlKey(RecordComponent component) {
        JsonProperty named = component.getAccessor().getAnnotation(JsonProperty.class);
        if (named != null && !named.value().isEmpty()) {
            return named.value();
        }
        return snakeCase(component.getName());
    }

    /** {@code camelCase} as {@code camel_case}. */
    static String snakeCase(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c)) {
                sb.append('_').append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
