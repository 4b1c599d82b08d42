/**
 * Step: what the operator wrote. The YAML file is read by {@link io.paduraksa.config.ConfigLoader}
 * into {@code *Spec} records ({@link io.paduraksa.config.PaduraksaSpec} and below), every key and
 * value checked, every error reported at once as
 * {@code file:line:column: yaml.path: problem (expected ...)}; {@link io.paduraksa.config.YamlPositions}
 * lets the snapshot compiler locate its own errors the same way.
 *
 * <p>Thread: the loader runs off the event loops, at start-up, for {@code paduraksa check} and on
 * reload; it allocates freely and never touches the running snapshot. Nothing here runs per request.
 */
package io.paduraksa.config;
