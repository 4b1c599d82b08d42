package io.paduraksa.ops;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.UpstreamCluster;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin listener's status page: {@code /status} is a self-contained HTML page (no external
 * assets) whose inline script reads {@code /status.json} every 2 s and fills in the figures;
 * request rates are computed in the page from two successive counts. Scrape time only: allocates.
 */
final class StatusPage {
    private StatusPage() {
    }

    /** The figures of the page, as JSON. */
    static String json(Metrics metrics, Reloader reloader, Map<String, InetSocketAddress> bound) {
        Metrics.Totals t = metrics.totals();
        Snapshot s = t.snapshot;
        String error = reloader.lastError();
        StringBuilder sb = new StringBuilder(1024);
        sb.append("{\"generation\":").append(s.generation())
                .append(",\"file\":").append(Json.string(s.sourceName()))
                .append(",\"sha256\":").append(Json.string(s.sourceSha256()))
                .append(",\"loaded_at\":").append(Json.string(s.compiledAt().toString()))
                .append(",\"last_reload_error\":").append(error == null ? "null" : Json.string(error))
                .append(",\"reloads\":").append(reloader.reloads())
                .append(",\"reload_failures\":").append(reloader.failures())
                .append(",\"time_ms\":").append(System.currentTimeMillis())
                .append(",\"open_connections\":").append(t.openConnectionsTotal())
                .append(",\"open_http2_streams\":").append(t.openStreams());
        sb.append(",\"listeners\":[");
        for (int l = 0; l < t.listeners.length; l++) {
            InetSocketAddress a = bound.get(t.listeners[l]);
            sb.append(l == 0 ? "" : ",").append("{\"name\":").append(Json.string(t.listeners[l]))
                    .append(",\"address\":").append(a == null ? "null" : Json.string(a.getAddress().getHostAddress() + ":" + a.getPort()))
                    .append(",\"admin\":").append(t.admin[l])
                    .append(",\"open_connections\":").append(t.openConnections[l]).append('}');
        }
        sb.append("],\"requests\":{");
        for (int c = 0; c < Metrics.CLASSES.length; c++) {
            sb.append(c == 0 ? "" : ",").append('"').append(Metrics.CLASSES[c]).append("\":").append(t.requestsByClass(c));
        }
        sb.append("},\"decisions\":{");
        for (int d = 0; d < Metrics.DECISIONS.length; d++) {
            sb.append(d == 0 ? "" : ",").append('"').append(Metrics.DECISIONS[d]).append("\":").append(t.decisions(d));
        }
        sb.append("},\"clusters\":");
        clusters(sb, s, DestinationGauges.collect(metrics.upstream()));
        return sb.append("}\n").toString();
    }

    /**
     * Clusters of the serving snapshot with their destinations; health and in-flight come from the
     * forwarder's report when it has one ({@code "health":"unknown"} otherwise), matched by the
     * destination's URL.
     */
    private static void clusters(StringBuilder sb, Snapshot s, List<DestinationGauges> reported) {
        Map<String, List<DestinationGauges>> byCluster = new LinkedHashMap<>();
        for (UpstreamCluster c : s.clusters().values()) {
            List<DestinationGauges> list = new ArrayList<>();
            for (UpstreamCluster.Destination d : c.destinations()) {
                list.add(find(reported, c.name(), d.url().toString()));
            }
            byCluster.put(c.name(), list);
        }
        for (DestinationGauges d : reported) {
            if (d.destination() != null && !byCluster.containsKey(d.cluster())) {
                byCluster.computeIfAbsent(d.cluster(), k -> new ArrayList<>()).add(d);
            }
        }
        sb.append('[');
        boolean first = true;
        for (Map.Entry<String, List<DestinationGauges>> e : byCluster.entrySet()) {
            sb.append(first ? "" : ",").append("{\"name\":").append(Json.string(e.getKey())).append(",\"destinations\":[");
            first = false;
            for (int i = 0; i < e.getValue().size(); i++) {
                DestinationGauges d = e.getValue().get(i);
                sb.append(i == 0 ? "" : ",").append("{\"url\":").append(Json.string(d.destination()))
                        .append(",\"health\":").append(d.inFlight() < 0 ? "\"unknown\"" : d.healthy() ? "\"healthy\"" : "\"down\"")
                        .append(",\"in_flight\":").append(Math.max(0, d.inFlight()))
                        .append(",\"open\":").append(d.open()).append(",\"idle\":").append(d.idle()).append('}');
            }
            sb.append("]}");
        }
        sb.append(']');
    }

    private static DestinationGauges find(List<DestinationGauges> reported, String cluster, String url) {
        for (DestinationGauges d : reported) {
            if (cluster.equals(d.cluster()) && url.equals(d.destination())) {
                return d;
            }
        }
        return new DestinationGauges(cluster, url, false, -1, 0, 0); // in-flight -1: not reported
    }

    static final String HTML = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Paduraksa status</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
            h1{font-size:1.3em;margin:0 0 .6em} h2{font-size:1.05em;margin:1.2em 0 .4em}
            table{border-collapse:collapse;background:#fff} td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left}
            th{background:#f0f0f0} .num{text-align:right;font-variant-numeric:tabular-nums}
            .err{color:#a00;white-space:pre-wrap} .ok{color:#070} .down{color:#a00} .muted{color:#777}
            </style></head>
            <body>
            <h1>Paduraksa</h1>
            <table>
            <tr><th>config generation</th><td id="generation">-</td></tr>
            <tr><th>file</th><td id="file">-</td></tr>
            <tr><th>sha256</th><td id="sha256">-</td></tr>
            <tr><th>loaded at</th><td id="loaded-at">-</td></tr>
            <tr><th>reloads / failures</th><td id="reloads">-</td></tr>
            <tr><th>last reload error</th><td id="last-error">-</td></tr>
            <tr><th>open connections</th><td id="open-connections" class="num">-</td></tr>
            <tr><th>open HTTP/2 streams</th><td id="open-streams" class="num">-</td></tr>
            </table>
            <h2>Requests</h2>
            <table><thead><tr><th>class</th><th>total</th><th>per second</th></tr></thead><tbody id="requests"></tbody></table>
            <h2>Gate decisions</h2>
            <table><tbody id="decisions"></tbody></table>
            <h2>Listeners</h2>
            <table><thead><tr><th>name</th><th>address</th><th>open connections</th></tr></thead><tbody id="listeners"></tbody></table>
            <h2>Clusters</h2>
            <div id="clusters" class="muted">-</div>
            <p class="muted">updated <span id="updated">never</span></p>
            <script>
            "use strict";
            let previous = null;
            function el(id) { return document.getElementById(id); }
            function cell(tr, text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); }
            function rows(id, list) {
              const body = el(id); body.replaceChildren();
              for (const r of list) { const tr = document.createElement("tr"); for (const c of r) cell(tr, c[0], c[1]); body.appendChild(tr); }
            }
            function render(s) {
              el("generation").textContent = s.generation;
              el("file").textContent = s.file;
              el("sha256").textContent = s.sha256;
              el("loaded-at").textContent = s.loaded_at;
              el("reloads").textContent = s.reloads + " / " + s.reload_failures;
              const e = el("last-error"); e.textContent = s.last_reload_error === null ? "none" : s.last_reload_error;
              e.className = s.last_reload_error === null ? "ok" : "err";
              el("open-connections").textContent = s.open_connections;
              el("open-streams").textContent = s.open_http2_streams;
              const seconds = previous ? (s.time_ms - previous.time_ms) / 1000 : 0;
              rows("requests", Object.keys(s.requests).map(k => [[k], [String(s.requests[k]), "num total-" + k],
                [seconds > 0 ? ((s.requests[k] - previous.requests[k]) / seconds).toFixed(1) : "-", "num"]]));
              rows("decisions", Object.keys(s.decisions).map(k => [[k], [String(s.decisions[k]), "num"]]));
              rows("listeners", s.listeners.map(l => [[l.name + (l.admin ? " (admin)" : "")], [l.address || "-"],
                [l.open_connections < 0 ? "-" : String(l.open_connections), "num"]]));
              clusters(s.clusters);
              el("updated").textContent = new Date(s.time_ms).toISOString();
              previous = s;
            }
            function clusters(list) {
              const box = el("clusters"); box.replaceChildren();
              if (list.length === 0) { box.textContent = "no clusters"; return; }
              box.className = "";
              for (const c of list) {
                const h = document.createElement("h3"); h.textContent = c.name; box.appendChild(h);
                const t = document.createElement("table");
                t.innerHTML = "<thead><tr><th>destination</th><th>health</th><th>in flight</th><th>open</th><th>idle</th></tr></thead>";
                const b = document.createElement("tbody"); t.appendChild(b); box.appendChild(t);
                for (const d of c.destinations) {
                  const tr = document.createElement("tr");
                  cell(tr, d.url); cell(tr, d.health, d.health === "healthy" ? "ok" : d.health === "down" ? "down" : "muted");
                  cell(tr, String(d.in_flight), "num"); cell(tr, String(d.open), "num"); cell(tr, String(d.idle), "num");
                  b.appendChild(tr);
                }
              }
            }
            function refresh() {
              fetch("status.json", {cache: "no-store"}).then(r => r.json()).then(render)
                .catch(err => { el("updated").textContent = "failed: " + err; });
            }
            refresh();
            setInterval(refresh, 2000);
            </script>
            </body></html>
            """;
}
