/**
 * The compiled configuration: {@link io.paduraksa.snapshot.SnapshotCompiler} turns bound specs
 * into an immutable {@link io.paduraksa.snapshot.Snapshot} off the event loops (start-up, reload,
 * {@code check}); {@link io.paduraksa.snapshot.SnapshotStore} publishes it with one volatile write
 * and the gate reads it with one volatile read per request.
 */
package io.paduraksa.snapshot;
