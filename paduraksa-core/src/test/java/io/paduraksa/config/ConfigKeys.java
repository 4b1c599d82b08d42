package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every key path of the configuration model, found by walking the {@code *Spec} records from
 * {@link PaduraksaSpec} the way {@link SpecBinder} binds them. The reference test and the schema
 * test compare docs/configuration.md and docs/paduraksa.schema.json with this set, so that neither
 * can name a key the loader lacks or miss one it has.
 *
 * <p>Path syntax: {@code .key} for a record component, {@code []} for each item of a list,
 * {@code .*} for each value of a mapping whose keys the operator names ({@code clusters.*}), and
 * {@code (type=x)} for a policy chosen by its type key ({@code policies.*(type=rate_limit).burst}).
 * In the {@linkplain #shared() shared} form, a record type used in more than one place (an action, a
 * response, a request rule) is walked once under {@code <type>} ({@code <respond>.status}) and its
 * uses only name the key ({@code default}, {@code policies.*(type=ip).action}).
 */
final class ConfigKeys {
    private final boolean expand;
    private final Set<Class<?>> sharedTypes;
    private final Set<String> paths = new LinkedHashSet<>();

    private ConfigKeys(boolean expand, Set<Class<?>> sharedTypes) {
        this.expand = expand;
        this.sharedTypes = sharedTypes;
    }

    /** Every key path, shared types written out wherever they are used (the schema's view). */
    static Set<String> expanded() {
        ConfigKeys keys = new ConfigKeys(true, Set.of());
        keys.record(PaduraksaSpec.class, "");
        return keys.paths;
    }

    /** Key paths with each shared type walked once under {@code <type>} (the reference's view). */
    static Set<String> shared() {
        Set<Class<?>> shared = sharedTypes();
        ConfigKeys keys = new ConfigKeys(false, shared);
        keys.record(PaduraksaSpec.class, "");
        for (Class<?> type : shared) {
            keys.record(type, "<" + sharedName(type) + ">");
        }
        return keys.paths;
    }

    /** Record types that more than one record component holds (directly or in a list or map). */
    static Set<Class<?>> sharedTypes() {
        Map<Class<?>, Integer> uses = new LinkedHashMap<>();
        countUses(PaduraksaSpec.class, uses, new LinkedHashSet<>());
        Set<Class<?>> shared = new LinkedHashSet<>();
        uses.forEach((type, n) -> {
            if (n > 1) {
                shared.add(type);
            }
        });
        return shared;
    }

    /** {@code ResponseHeadersSpec} is {@code response_headers}. */
    static String sharedName(Class<?> type) {
        String simple = type.getSimpleName();
        return snake(simple.endsWith("Spec") ? simple.substring(0, simple.length() - 4) : simple).substring(1);
    }

    private void record(Class<?> type, String prefix) {
        for (RecordComponent c : type.getRecordComponents()) {
            String path = prefix.isEmpty() ? yamlKey(c) : prefix + "." + yamlKey(c);
            paths.add(path);
            value(c.getGenericType(), path);
        }
    }

    private void value(Type type, String path) {
        Class<?> raw = raw(type);
        if (raw == List.class) {
            value(argument(type, 0), path + "[]");
        } else if (raw == Map.class) {
            value(argument(type, 1), path + ".*");
        } else if (isRecord(raw)) {
            if (expand || !sharedTypes.contains(raw)) {
                record(raw, path);
            }
        } else if (isTyped(raw)) {
            String property = raw.getAnnotation(JsonTypeInfo.class).property();
            paths.add(path + "." + property);
            for (JsonSubTypes.Type sub : raw.getAnnotation(JsonSubTypes.class).value()) {
                record(sub.value(), path + "(type=" + sub.name() + ")");
            }
        }
    }

    private static void countUses(Class<?> type, Map<Class<?>, Integer> uses, Set<Class<?>> walked) {
        if (!walked.add(type)) {
            return;
        }
        for (RecordComponent c : type.getRecordComponents()) {
            Class<?> held = held(c.getGenericType());
            if (isRecord(held)) {
                uses.merge(held, 1, Integer::sum);
                countUses(held, uses, walked);
            } else if (isTyped(held)) {
                for (JsonSubTypes.Type sub : held.getAnnotation(JsonSubTypes.class).value()) {
                    countUses(sub.value(), uses, walked);
                }
            }
        }
    }

    /** The type a component holds, through lists and maps. */
    private static Class<?> held(Type type) {
        Class<?> raw = raw(type);
        if (raw == List.class) {
            return held(argument(type, 0));
        }
        return raw == Map.class ? held(argument(type, 1)) : raw;
    }

    /** DataSize and Share are records bound from one scalar, as in {@link SpecBinder}. */
    private static boolean isRecord(Class<?> raw) {
        return raw.isRecord() && raw != DataSize.class && raw != Share.class;
    }

    private static boolean isTyped(Class<?> raw) {
        return raw.isInterface() && raw.isAnnotationPresent(JsonTypeInfo.class);
    }

    private static Class<?> raw(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    private static Type argument(Type type, int index) {
        return ((ParameterizedType) type).getActualTypeArguments()[index];
    }

    /** The YAML key of a component, named exactly as the binder names it. */
    static String yamlKey(RecordComponent component) {
        return SpecBinder.yamlKey(component);
    }

    private static String snake(String name) {
        return SpecBinder.snakeCase(name);
    }
}
