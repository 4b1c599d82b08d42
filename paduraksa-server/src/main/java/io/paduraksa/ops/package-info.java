/**
 * Step: operations, around the request path rather than on it. {@link io.paduraksa.ops.Reloader}
 * compiles a new snapshot on the SIGHUP thread and publishes it with one volatile write;
 * {@link io.paduraksa.ops.Signals} turns SIGHUP/SIGTERM/SIGINT into reload and graceful stop;
 * {@link io.paduraksa.ops.AdminHandler} answers /healthz, /ready, /metrics, /config, /status and
 * /status.json on the admin listener's event loop; {@link io.paduraksa.ops.SystemdNotifier} tells
 * systemd READY, RELOADING, STOPPING and WATCHDOG from its own one-thread event loop.
 *
 * <p>Thread: signal and reload threads, the notifier's loop; only the admin handler runs on a server
 * event loop, and only for admin requests. The exception is counting: {@link io.paduraksa.ops.Metrics}
 * and {@link io.paduraksa.ops.UpstreamMetrics} are called once per request on the event loops
 * (0 B, each thread writes its own stripe) and summed on the admin loop when scraped.
 */
package io.paduraksa.ops;
