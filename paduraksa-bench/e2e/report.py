#!/usr/bin/python3
"""Summarises a run directory: summary.json, summary.md and chart.svg from runs.jsonl and env.json.

Usage: report.py RUN_DIR   (harness.py calls it at the end of every run). Standard library only.
"""
import json
import os
import statistics
import sys

SCENARIOS = ["static", "redirect", "deny", "proxy", "proxy2", "cached"]
SCENARIO_TITLE = {"static": "gate-answered 200 (/static)", "redirect": "gate-answered 301 (/old)",
                  "deny": "gate-answered 403 (/admin, path policy)", "proxy": "proxied (/ to the upstream)",
                  "proxy2": "proxied over h2c (/up2 to the upstream's HTTP/2 port)",
                  "cached": "cache hits (/cached, stored from the upstream)"}
SHAPES = ["minimal", "browser"]
PROTOS = ["h1", "h2c"]
SUBJECTS = ["paduraksa", "nginx", "haproxy", "direct"]
COLORS = {"paduraksa": "#2b6cb0", "nginx": "#38a169", "haproxy": "#dd6b20", "direct": "#718096"}


def load(run):
    with open(os.path.join(run, "runs.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(run, "env.json")) as f:
        env = json.load(f)
    return rows, env


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def summarise(rows):
    measured = [r for r in rows if "skipped" not in r and "unavailable" not in r and "failed" not in r]
    by_cell_round = {}
    for r in measured:
        by_cell_round[(r["scenario"], r["shape"], r["proto"], r["round"], r["subject"])] = r
    out = []
    keys = sorted({(r["scenario"], r["shape"], r["proto"], r["subject"]) for r in measured},
                  key=lambda k: (SCENARIOS.index(k[0]), SHAPES.index(k[1]), PROTOS.index(k[2]), SUBJECTS.index(k[3])))
    for sc, sh, pr, su in keys:
        rs = [r for r in measured if (r["scenario"], r["shape"], r["proto"], r["subject"]) == (sc, sh, pr, su)]
        vs = {}
        for peer in ("nginx", "haproxy"):
            ratios = []
            for r in rs:
                p = by_cell_round.get((sc, sh, pr, r["round"], peer))
                if p and p.get("subject_us_per_req") and r.get("subject_us_per_req") is not None:
                    ratios.append(r["subject_us_per_req"] / p["subject_us_per_req"])
            vs[peer] = spread(ratios)
        own_static = []
        if sc == "cached":
            for r in rs:
                st = by_cell_round.get(("static", sh, pr, r["round"], su))
                if st and st.get("subject_us_per_req") and r.get("subject_us_per_req") is not None:
                    own_static.append(r["subject_us_per_req"] / st["subject_us_per_req"])
        allocs = [r.get("alloc_b_per_req") for r in rs]
        out.append({
            "scenario": sc, "shape": sh, "proto": pr, "subject": su,
            "rps": spread([r["rps"] for r in rs]),
            "p50_us": spread([r["p50_us"] for r in rs]), "p99_us": spread([r["p99_us"] for r in rs]),
            "cpu_us_per_req": spread([r["subject_us_per_req"] for r in rs]),
            "upstream_us_per_req": spread([r.get("upstream_us_per_req") for r in rs]),
            "ratio_to_upstream": spread([r.get("ratio_to_upstream") for r in rs]),
            "vs_own_static": spread(own_static) if sc == "cached" else None,
            "vs_nginx": vs["nginx"] if su not in ("nginx", "direct") else None,
            "vs_haproxy": vs["haproxy"] if su not in ("haproxy", "direct") else None,
            "alloc_b_per_req": spread(allocs),
            "alloc_notes": sorted({r["alloc_note"] for r in rs if r.get("alloc_note")}),
            "runs": len(rs), "noisy_runs": sum(1 for r in rs if r.get("noisy")),
            "other_cores": spread([r.get("other_cores") for r in rs]),
            "bad_responses": sum(r["bad_status"] for r in rs), "transport_errors": sum(r["errors"] for r in rs),
            "requests": sum(r["requests"] for r in rs),
        })
    notes = []
    for r in rows:
        if "skipped" in r:
            notes.append("%s, %s: %s" % (r["subject"], r["scenario"], r["skipped"]))
    for r in rows:
        if "failed" in r:
            notes.append("%s, %s %s %s round %d: window failed: %s" % (r["subject"], r["scenario"], r["shape"],
                                                                     r["proto"], r["round"], r["failed"].strip()[-200:]))
    for r in rows:
        if "unavailable" in r:
            notes.append("%s, %s %s %s round %d: %s" % (r["subject"], r["scenario"], r["shape"], r["proto"],
                                                       r["round"], r["unavailable"]))
    return out, sorted(set(notes))


def fmt(s, digits=1, scale=1.0):
    if not s:
        return "-"
    m, lo, hi = s["median"] * scale, s["min"] * scale, s["max"] * scale
    if s["n"] == 1:
        return "%.*f" % (digits, m)
    return "%.*f [%.*f-%.*f]" % (digits, m, digits, lo, digits, hi)


def markdown(summary, notes, env, chart_name="chart.svg", skipped=()):
    s = env.get("settings", {})
    lines = [
        "Run of %s, %s elapsed. Machine: %s, %d CPUs, kernel %s, %s." % (
            env["date"], duration(env.get("elapsed_s")), env["cpu_model"], env["cpus"], env["kernel"], env["os"]),
        "Peers: %s; %s; load: %s; %s. JDK: %s. Paduraksa at `%s`." % (
            env["nginx"], env["haproxy"], env["wrk"], env["h2load"], env["jdk"], env["paduraksa_commit"]),
        "",
        "Command: `%s`" % env["command"],
        "",
        "Settings: %d round(s), %d s windows after %d s warm-ups; HTTP/1.1: wrk %d threads, %d connections; "
        "h2c: h2load %d threads, %d connections x %d streams; load generator %s; a window is flagged noisy "
        "when other processes or steal used more than %.2f of a core. Load average at start: %s." % (
            s.get("rounds", 0), s.get("duration", 0), s.get("warmup", 0), s.get("h1_threads", 0),
            s.get("h1_conns", 0), s.get("h2_threads", 0), s.get("h2_conns", 0), s.get("h2_streams", 0),
            ("pinned to CPUs " + s["loadgen_cpus"]) if s.get("loadgen_cpus") else "unpinned",
            s.get("noisy_cores", 0), " ".join(env.get("loadavg_at_start", []))),
        "",
    ]
    if s.get("rate"):
        lines += [
            "Paced: every window at %d requests/s (`--rate`), HTTP/1.1 too through `h2load --h1` (its headers are "
            "fixed for a window, as on h2c), so that windows compare at one throughput; a subject that cannot keep "
            "the rate shows fewer req/s." % s["rate"],
            "",
        ]
    lines += [
        "Each cell: median [min-max] over rounds. CPU = utime+stime of the subject's processes (all threads) "
        "per request. x upstream = subject CPU / upstream nginx CPU in the same window (proxied only). "
        "x nginx, x HAProxy = the subject's CPU per request divided by that peer's in the same round and cell. "
        "`direct` is the load sent straight to the upstream; its CPU column is the upstream's own cost.",
        "",
        "![CPU per request and requests/s](%s)" % chart_name,
        "",
    ]
    for sc in SCENARIOS:
        rows = [r for r in summary if r["scenario"] == sc]
        gone = sorted({(su, why) for su, s2, why in skipped if s2 == sc})
        if not rows and not gone:
            continue
        lines += ["#### %s" % SCENARIO_TITLE[sc], ""]
        if sc == "cached":
            lines += ["x own /static here: the subject's CPU per cache hit over its own CPU per gate-answered 200 "
                      "(/static) in the same round, shape and protocol. upstream us/req: the upstream's CPU per "
                      "request in the window (0 when every request was a hit).", ""]
        lines += [("| shape | proto | subject | req/s | p50 / p99 ms | CPU us/req | %s | x nginx | x HAProxy "
                   "| alloc B/req | runs (noisy) | bad / errors |") % ("x own /static" if sc == "cached" else "x upstream"),
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            lat = "-"
            if r["p50_us"] and r["p99_us"]:
                lat = "%.2f / %.1f" % (r["p50_us"]["median"] / 1000.0, r["p99_us"]["median"] / 1000.0)
            alloc = fmt(r["alloc_b_per_req"], 0) if r["alloc_b_per_req"] else ("n/a" if r["subject"] == "paduraksa" else "")
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d (%d) | %d / %d |" % (
                r["shape"], r["proto"], r["subject"], fmt(r["rps"], 0), lat, fmt(r["cpu_us_per_req"], 2),
                fmt(r["vs_own_static"] if sc == "cached" else r["ratio_to_upstream"], 2), fmt(r["vs_nginx"], 2),
                fmt(r["vs_haproxy"], 2), alloc,
                r["runs"], r["noisy_runs"], r["bad_responses"], r["transport_errors"]))
        for su, why in gone:
            lines.append("| all | all | %s | %s | | | | | | | 0 | |" % (su, why))
        if sc == "cached" and rows:
            lines += ["", "upstream us/req during the cache-hit windows: " + ", ".join(
                "%s %s %s %s" % (r["subject"], r["shape"], r["proto"], fmt(r["upstream_us_per_req"], 2)) for r in rows)]
        lines.append("")
    alloc_notes = sorted({n for r in summary for n in r["alloc_notes"]})
    if notes or alloc_notes:
        lines += ["Not measured / notes:", ""] + ["- " + n for n in notes + alloc_notes] + [""]
    return "\n".join(lines)


def duration(sec):
    if sec is None:
        return "?"
    return "%dm%02ds" % (sec // 60, sec % 60)


# ---------------------------------------------------------------- chart

def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def nice_max(v):
    if v <= 0:
        return 1.0
    import math
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def panel(summary, key, title, unit, y0, width, height, cells, subjects, fmt_tick, skipped=()):
    left, right, top, bottom = 70, 20, 30, 60
    ph = height - top - bottom
    pw = width - left - right
    vals = [r[key]["max"] for r in summary if r[key]]
    vmax = nice_max(max(vals) if vals else 1)
    out = ['<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>' % (left, y0 + 18, esc(title))]
    for i in range(6):
        v = vmax * i / 5
        y = y0 + top + ph - ph * i / 5
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e2e8f0"/>' % (left, left + pw, y, y))
        out.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">%s</text>' % (left - 4, y + 3, fmt_tick(v)))
    out.append('<text x="14" y="%.1f" font-size="11" transform="rotate(-90 14 %.1f)" text-anchor="middle">%s</text>' % (
        y0 + top + ph / 2, y0 + top + ph / 2, esc(unit)))
    gw = pw / max(1, len(cells))
    bw = min(14.0, (gw - 8) / max(1, len(subjects)))
    idx = {(r["scenario"], r["shape"], r["proto"], r["subject"]): r for r in summary}
    for ci, cell in enumerate(cells):
        gx = left + ci * gw
        if ci % 4 == 0 and ci:
            out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#a0aec0"/>' % (gx, gx, y0 + top, y0 + top + ph + 45))
        for si, su in enumerate(subjects):
            r = idx.get(cell + (su,))
            if (su, cell[0]) in skipped:
                cx = gx + (gw - len(subjects) * bw) / 2 + si * bw + (bw - 1) / 2
                out.append('<text x="%.1f" y="%d" font-size="9" fill="%s" text-anchor="end" '
                           'transform="rotate(-90 %.1f %d)">n/a</text>' % (cx + 3, y0 + top + ph - 3, COLORS[su], cx + 3, y0 + top + ph - 3))
                continue
            if not r or not r[key]:
                continue
            s = r[key]
            x = gx + (gw - len(subjects) * bw) / 2 + si * bw
            h = ph * s["median"] / vmax
            y = y0 + top + ph - h
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s %s %s: %s</title></rect>' % (
                x, y, bw - 1, h, COLORS[su], su, cell[0], cell[1], cell[2], esc(fmt(s, 2))))
            if s["n"] > 1:
                ylo = y0 + top + ph - ph * s["min"] / vmax
                yhi = y0 + top + ph - ph * s["max"] / vmax
                cx = x + (bw - 1) / 2
                out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#1a202c" stroke-width="1"/>' % (cx, cx, ylo, yhi))
        lx = gx + gw / 2
        out.append('<text x="%.1f" y="%d" font-size="9" text-anchor="middle">%s</text>' % (lx, y0 + top + ph + 12, cell[1][:3] + " " + cell[2]))
        if ci % 4 == 0:
            out.append('<text x="%.1f" y="%d" font-size="11" font-weight="bold">%s</text>' % (gx + 4, y0 + top + ph + 30, esc(cell[0])))
    out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#2d3748"/>' % (left, left + pw, y0 + top + ph, y0 + top + ph))
    return out


def chart(summary, skipped=()):
    cells = [(sc, sh, pr) for sc in SCENARIOS for sh in SHAPES for pr in PROTOS
             if any((r["scenario"], r["shape"], r["proto"]) == (sc, sh, pr) for r in summary)]
    subjects = [s for s in SUBJECTS if any(r["subject"] == s for r in summary)]
    reasons = {su: why for su, _, why in skipped}
    skipped = {(su, sc) for su, sc, _ in skipped}
    width, ph = max(700, 90 + 60 * len(cells)), 300
    height = 2 * ph + 60
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    out += panel(summary, "cpu_us_per_req", "CPU per request (subject process, median; whisker = min-max)", "µs per request",
                 0, width, ph, cells, subjects, lambda v: "%g" % round(v, 1), skipped)
    out += panel(summary, "rps", "Requests per second (whole rig: 2 shared cores)", "requests/s",
                 ph, width, ph, cells, subjects, lambda v: "%dk" % round(v / 1000) if v >= 1000 else "%d" % v, skipped)
    x = 80
    for su in subjects:
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (x, height - 40, COLORS[su]))
        label = su + (" (upstream itself)" if su == "direct" else "")
        if su in reasons:
            label += " (n/a: %s)" % reasons[su]
        out.append('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 16, height - 30, esc(label)))
        x += 40 + 8 * len(label)
    out.append('</svg>')
    return "\n".join(out) + "\n"


def write(run):
    rows, env = load(run)
    summary, notes = summarise(rows)
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump({"env": env, "summary": summary, "notes": notes}, f, indent=1)
    skipped = [(r["subject"], r["scenario"], r["skipped"]) for r in rows if "skipped" in r]
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write(markdown(summary, notes, env, skipped=skipped))
    with open(os.path.join(run, "chart.svg"), "w") as f:
        f.write(chart(summary, skipped))


def print_markdown(run, chart_link):
    """The summary with the chart linked from elsewhere (for docs/benchmarks-e2e.md)."""
    rows, env = load(run)
    summary, notes = summarise(rows)
    skipped = [(r["subject"], r["scenario"], r["skipped"]) for r in rows if "skipped" in r]
    sys.stdout.write(markdown(summary, notes, env, chart_name=chart_link, skipped=skipped))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--markdown-with-chart":
        print_markdown(sys.argv[1], sys.argv[3])
    elif len(sys.argv) == 2:
        write(sys.argv[1])
    else:
        sys.exit(__doc__ + "\n       report.py RUN_DIR --markdown-with-chart LINK   (print the summary only)")
