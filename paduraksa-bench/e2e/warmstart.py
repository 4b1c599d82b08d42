#!/usr/bin/env python3
"""Time from start to steady state, with and without the package's AOT cache (docs/benchmarks.md,
"A warm start").

    warmstart.py [--dist DIR] [--rounds 3] [--seconds 30] [--protos h1,h2c] [--connections 16]
                 [--variant NAME=[PADURAKSA_AOT=off] [JVM options]]...

For each round and protocol, the unpacked package's launcher starts Paduraksa pinned to CPU 1
(`server.threads: 1`) once per variant (by default twice: with its AOT cache and with PADURAKSA_AOT=off,
in alternating order); constant load (wrk for HTTP/1.1, h2load for h2c, both proxied to an nginx upstream on CPU 0)
starts the moment the port accepts. Every second the server's CPU time (/proc, all threads) and its
request counter (admin /metrics) are sampled, which gives requests per second and CPU per request in
1 s buckets from the start. Reported per run: the time from exec to the first accepted connection,
the requests and CPU of the first 5 and 10 s, and the first second from which requests per second stay
within 10% of the steady state (the mean of the last 5 buckets). The same on the process's own CPU
clock, which a busy neighbour on the shared core does not stretch: the CPU seconds used before every
1 s bucket's CPU per request stays within 10% of the steady state's, and CPU per request over the
first 5 and 10 CPU seconds. Results go to results/warmstart-<timestamp>/ (runs.json, summary.md);
--summarize RUNS_JSON (with the same --variant options) rewrites the summary of an earlier run.

--dist defaults to the tarball paduraksa-dist/target/paduraksa-*.tar.gz, unpacked into the results
directory (./mvnw -B -q -DskipTests package builds it). Needs nginx, wrk, h2load and taskset.

--variant (repeatable) replaces the two cache modes by named option sets, e.g.
    --variant base= --variant ci3=-XX:CICompilerCount=3 --variant nocache=PADURAKSA_AOT=off
Leading NAME=value words set the launcher's environment; the rest goes to PADURAKSA_JAVA_OPTS, which
the launcher appends after its defaults. The order rotates by one each round (two variants: they
alternate), and the summary gives each variant's ratio to the first one in the same round.
"""
import argparse
import glob
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import genconf  # noqa: E402
from harness import Procs, descendants, log, port_free, proc_ticks, wait_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
BODY_PATH = "/app/page?id=7"
# without --variant: the cache modes of the first measurements (the labels are the summary's)
DEFAULT_VARIANTS = [("aot", {"PADURAKSA_AOT": "on"}, ""), ("off", {"PADURAKSA_AOT": "off"}, "")]
LABELS = {"aot": "AOT cache", "off": "no cache"}


def parse_variant(text):
    """NAME=[VAR=value ...] [JVM options] -> (name, environment, options)."""
    name, _, rest = text.partition("=")
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise SystemExit("warmstart.py: --variant %r: expected NAME=[VAR=value ...] [JVM options]" % text)
    words, env = shlex.split(rest), {}
    while words and "=" in words[0] and words[0].split("=", 1)[0].isupper():
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return name, env, " ".join(words)


def config(port, admin, upstream):
    return "\n".join([
        "server: {threads: 1}",
        "listeners:",
        '  - {name: public, address: "127.0.0.1:%d", protocols: [http1, h2c]}' % port,
        '  - {name: admin, address: "127.0.0.1:%d", admin: true}' % admin,
        "clusters:",
        '  up: {destinations: [{url: "http://127.0.0.1:%d"}]}' % upstream,
        "policies:",
        "  no-admin: {type: path, deny: [/admin]}",
        "  bots: {type: user_agent, deny: [sqlmap, nikto]}",
        "hosts:",
        '  - names: [a.test]',
        "    policies: [no-admin, bots]",
        "    routes:",
        "      - {path: /, forward: up}",
        "",
    ])


def requests_total(admin):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % admin, timeout=2) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    total = 0.0
    for line in text.splitlines():
        if line.startswith("paduraksa_requests_total"):
            total += float(line.split()[-1])
    return total


def load_argv(proto, port, seconds, connections):
    url = "http://127.0.0.1:%d%s" % (port, BODY_PATH)
    if proto == "h1":
        return ["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-H", "Host: a.test", url]
    return ["h2load", "-t1", "-c%d" % max(1, connections // 4), "-m8", "-D", str(seconds),
            "-H", ":authority: a.test", url]


def one_run(dist, variant, proto, a, ports, procs, out_dir, index):
    mode, variant_env, java_opts = variant
    env = dict(os.environ)
    env.pop("JAVA_OPTS", None)
    env.pop("PADURAKSA_JAVA_OPTS", None)
    env.pop("PADURAKSA_AOT", None)
    env.update(variant_env)
    if java_opts:
        env["PADURAKSA_JAVA_OPTS"] = java_opts
    loadavg = os.getloadavg()[0]
    conf = os.path.join(out_dir, "paduraksa.yaml")
    launcher = os.path.join(dist, "bin", "paduraksa")
    name = "paduraksa-%d" % index
    t0 = time.monotonic()
    p = procs.start(name, ["taskset", "-c", "1", launcher, "run", "--config", conf],
                    os.path.join(out_dir, "%s-%s-%s-%d.log" % (name, mode, proto, index)), env=env)
    # the first accepted connection: poll fast, the wait is what is measured
    started = None
    while time.monotonic() - t0 < 60:
        if p.poll() is not None:
            raise SystemExit("paduraksa exited at start; see %s" % out_dir)
        try:
            socket.create_connection(("127.0.0.1", ports["pad"]), timeout=0.2).close()
            started = time.monotonic() - t0
            break
        except OSError:
            time.sleep(0.005)
    if started is None:
        raise SystemExit("paduraksa did not listen within 60 s")
    load = subprocess.Popen(["taskset", "-c", "0"] + load_argv(proto, ports["pad"], a.seconds, a.connections),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    buckets = []
    last_req, last_cpu = requests_total(ports["pad_admin"]) or 0.0, proc_ticks([p.pid] + descendants(p.pid))
    next_t = time.monotonic() + 1
    for _ in range(a.seconds):
        time.sleep(max(0, next_t - time.monotonic()))
        next_t += 1
        req = requests_total(ports["pad_admin"]) or last_req
        cpu = proc_ticks([p.pid] + descendants(p.pid))
        # the metrics request itself is one request a second: not counted
        buckets.append({"requests": max(0.0, req - last_req - 1), "cpu_s": (cpu - last_cpu) / TICK})
        last_req, last_cpu = req, cpu
    out = load.communicate(timeout=30)[0].decode("utf-8", "replace")
    procs.stop_all()
    rps = [b["requests"] for b in buckets]
    steady = sum(rps[-5:]) / 5 if len(rps) >= 5 else max(rps)
    settle = next((i + 1 for i in range(len(rps)) if all(r >= 0.9 * steady for r in rps[i:])), None)

    def window(n):
        req = sum(b["requests"] for b in buckets[:n])
        cpu = sum(b["cpu_s"] for b in buckets[:n])
        return {"requests": req, "cpu_s": cpu, "cpu_us_per_request": (cpu * 1e6 / req) if req else None}

    steady_cpu = sum(b["cpu_s"] for b in buckets[-5:])
    steady_req = sum(b["requests"] for b in buckets[-5:])
    return {"mode": mode, "env": variant_env, "java_opts": java_opts, "loadavg_1m": round(loadavg, 2),
            "proto": proto, "round": index, "start_to_listen_s": round(started, 3),
            "buckets": buckets, "steady_rps": steady,
            "steady_cpu_us_per_request": steady_cpu * 1e6 / steady_req if steady_req else None,
            "seconds_to_steady": settle, "first5": window(5), "first10": window(10), "all": window(len(buckets)),
            **cpu_clock(buckets), "load_tail": out.strip().splitlines()[-6:]}


def cpu_clock(buckets):
    """The warm-up on the process's CPU clock. On a shared core (a scheduler autogroup per session gives
    another session's busy thread half of CPU 1, whatever its nice value) wall-clock seconds measure
    the neighbour too, while the JIT's progress follows the CPU time the process got."""
    per = [b["cpu_s"] / b["requests"] if b["requests"] else float("inf") for b in buckets]
    steady_per = sum(b["cpu_s"] for b in buckets[-5:]) / max(1.0, sum(b["requests"] for b in buckets[-5:]))
    steady_at = next(i for i in range(len(per) + 1) if all(x <= 1.1 * steady_per for x in per[i:]))

    def cpu_window(n):
        cpu = req = 0.0
        for b in buckets:
            if cpu + b["cpu_s"] >= n:
                req += b["requests"] * (n - cpu) / b["cpu_s"]
                return {"requests": req, "cpu_s": n, "cpu_us_per_request": n * 1e6 / req if req else None}
            cpu += b["cpu_s"]
            req += b["requests"]
        return None

    # the steady state's cost measured alone on the core: the neighbour's cache traffic costs us ~10-30%
    quiet = [b for b in buckets[-10:] if b["cpu_s"] >= 0.9]
    return {"cpu_s_to_steady": round(sum(b["cpu_s"] for b in buckets[:steady_at]), 2),
            "steady_alone_cpu_us_per_request":
                sum(b["cpu_s"] for b in quiet) * 1e6 / sum(b["requests"] for b in quiet) if quiet else None,
            "first5_cpu_s": cpu_window(5), "first10_cpu_s": cpu_window(10),
            "contended_buckets": sum(1 for b in buckets if b["cpu_s"] < 0.9)}


def ratios(runs, proto, mode, first):
    """Per round: (CPU s to steady, CPU/request in the first 5 CPU s, steady CPU/request) of mode
    against first: a difference, then ratios; last the steady state in buckets alone on the core."""
    out = []
    for r in runs:
        if r["proto"] != proto or r["mode"] != mode:
            continue
        b = next((x for x in runs if x["proto"] == proto and x["mode"] == first and x["round"] == r["round"]), None)
        if b is None:
            continue
        q = [r["cpu_s_to_steady"] - b["cpu_s_to_steady"]]
        for f in (lambda x: (x["first5_cpu_s"] or {}).get("cpu_us_per_request"), lambda x: x["steady_cpu_us_per_request"],
                  lambda x: x["steady_alone_cpu_us_per_request"]):
            q.append(f(r) / f(b) if f(r) and f(b) else None)
        out.append(q)
    return out


def summarize(runs, out_dir, a, dist, variants):
    modes = [v[0] for v in variants]
    lines = ["# Warm start: %s" % ("with and without the AOT cache" if variants == DEFAULT_VARIANTS
                                   else "option sets compared"), "",
             "`paduraksa-bench/e2e/warmstart.py %s` at %s; dist %s. Paduraksa pinned to CPU 1, one event loop;"
             " proxied GET to an nginx upstream on CPU 0; load starts at the first accepted connection."
             % (" ".join(shlex.quote(x) for x in sys.argv[1:]), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), dist), "",
             "| proto | mode | runs | exec to listening (s) | requests in first 5 s | CPU µs/request, first 5 s |"
             " first 10 s | steady | seconds to steady (within 10%) | CPU s to steady | CPU µs/request, first 5 CPU s |"
             " first 10 CPU s | buckets under 0.9 CPU s | steady, buckets alone on the core |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for proto in a.protos.split(","):
        for mode in (("off", "aot") if variants == DEFAULT_VARIANTS else modes):
            rs = [r for r in runs if r["proto"] == proto and r["mode"] == mode]
            if not rs:
                continue

            def med(f):
                v = sorted(x for x in (f(r) for r in rs) if x is not None)
                return v[len(v) // 2] if v else None

            def fmt(x, d=1):
                return "-" if x is None else ("%.*f" % (d, x))
            lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                proto, LABELS.get(mode, mode) if variants == DEFAULT_VARIANTS else mode, len(rs),
                fmt(med(lambda r: r["start_to_listen_s"]), 2), fmt(med(lambda r: r["first5"]["requests"]), 0),
                fmt(med(lambda r: r["first5"]["cpu_us_per_request"])), fmt(med(lambda r: r["first10"]["cpu_us_per_request"])),
                fmt(med(lambda r: r["steady_cpu_us_per_request"])), fmt(med(lambda r: r["seconds_to_steady"]), 0),
                fmt(med(lambda r: r["cpu_s_to_steady"])),
                fmt(med(lambda r: (r["first5_cpu_s"] or {}).get("cpu_us_per_request"))),
                fmt(med(lambda r: (r["first10_cpu_s"] or {}).get("cpu_us_per_request"))),
                fmt(med(lambda r: r["contended_buckets"]), 0), fmt(med(lambda r: r["steady_alone_cpu_us_per_request"]))))
    lines += ["", "Medians over the rounds; each round ran every variant back to back, the order rotating by one"
              " each round.", ""]
    if variants != DEFAULT_VARIANTS:
        lines += ["Variants (PADURAKSA_JAVA_OPTS after the launcher's defaults): " + "; ".join(
            "`%s` = %s" % (m, " ".join(["%s=%s" % kv for kv in e.items()] + [o]).strip() or "(launcher defaults)")
            for m, e, o in variants), "",
            "Same round, against `%s`: CPU seconds to steady (difference), CPU per request in the first 5 CPU s"
            " and in the steady state (last 5 s; last 10 s alone on the core) (ratios), one entry per round:"
            % modes[0], ""]
        for proto in a.protos.split(","):
            for mode in modes[1:]:
                q = ratios(runs, proto, mode, modes[0])
                lines.append("- %s %s: %s" % (proto, mode, ", ".join(
                    "%+.1f s / %s" % (d, " / ".join("-" if x is None else "%.2f" % x for x in xs)) for d, *xs in q)))
        lines.append("")
    lines += ["Load average (1 min) at each start: %s" % " ".join("%.1f" % r.get("loadavg_1m", -1) for r in runs), "",
              "Requests per second, 1 s buckets (median run of each row):", ""]
    for proto in a.protos.split(","):
        for mode in (("off", "aot") if variants == DEFAULT_VARIANTS else modes):
            rs = [r for r in runs if r["proto"] == proto and r["mode"] == mode]
            if rs:
                rs.sort(key=lambda r: r["first5"]["requests"])
                r = rs[len(rs) // 2]
                lines.append("- %s %s: %s" % (proto, mode, " ".join("%d" % b["requests"] for b in r["buckets"])))
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--protos", default="h1,h2c")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--out")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=[VAR=value ...] [JVM options]")
    ap.add_argument("--summarize", metavar="RUNS_JSON", help="only write summary.md (into --out) for an earlier runs.json")
    a = ap.parse_args()
    variants = [parse_variant(v) for v in a.variant] or DEFAULT_VARIANTS
    if len({v[0] for v in variants}) != len(variants):
        raise SystemExit("warmstart.py: two variants with one name")
    if a.summarize:
        with open(a.summarize) as f:
            runs = json.load(f)
        for r in runs:
            r.update(cpu_clock(r["buckets"]))  # runs from before the CPU clock lack it
        os.makedirs(a.out or ".", exist_ok=True)
        summarize(runs, a.out or ".", a, a.summarize, variants)
        return
    for tool in ("nginx", "wrk", "h2load", "taskset"):
        if shutil.which(tool) is None:
            raise SystemExit("warmstart.py: %s is missing (apt-get install -y nginx-light wrk nghttp2-client)" % tool)
    out_dir = a.out or os.path.join(HERE, "results", "warmstart-" + time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out_dir, exist_ok=True)
    dist = a.dist
    if dist is None:
        tarballs = sorted(glob.glob(os.path.join(REPO, "paduraksa-dist", "target", "paduraksa-*.tar.gz")))
        if not tarballs:
            raise SystemExit("warmstart.py: no tarball; build it: ./mvnw -B -q -DskipTests package")
        with tarfile.open(tarballs[-1]) as t:
            t.extractall(out_dir)
        dist = glob.glob(os.path.join(out_dir, "paduraksa-*"))[0]
    dist = os.path.abspath(dist)
    if not os.path.exists(os.path.join(dist, "lib", "paduraksa.aot")):
        raise SystemExit("warmstart.py: %s has no lib/paduraksa.aot" % dist)
    base = 18700
    ports = {"up_h1": base, "up_h2": base + 1, "pad": base + 30, "pad_admin": base + 31}
    for p in ports.values():
        if not port_free(p):
            raise SystemExit("warmstart.py: port %d is in use" % p)
    with open(os.path.join(out_dir, "paduraksa.yaml"), "w") as f:
        f.write(config(ports["pad"], ports["pad_admin"], ports["up_h1"]))
    os.makedirs(os.path.join(out_dir, "upstream.tmp"), exist_ok=True)
    with open(os.path.join(out_dir, "upstream.conf"), "w") as f:
        f.write(genconf.nginx_upstream_conf(out_dir, ports["up_h1"], ports["up_h2"]))
    upstream_procs = Procs(os.path.join(out_dir, "upstream.pids"))
    procs = Procs(os.path.join(out_dir, "paduraksa.pids"))
    runs = []
    try:
        up = upstream_procs.start("upstream", ["taskset", "-c", "0", "nginx", "-c", os.path.join(out_dir, "upstream.conf"),
                                               "-p", out_dir, "-g", "daemon off;"], os.path.join(out_dir, "upstream.out"))
        if not wait_port(ports["up_h1"], up, 10):
            raise SystemExit("the upstream nginx did not start")
        for i in range(a.rounds):
            for proto in a.protos.split(","):
                k = i % len(variants)
                for variant in variants[k:] + variants[:k]:
                    r = one_run(dist, variant, proto, a, ports, procs, out_dir, i)
                    log("round %d %s %s: listening after %.2f s, first 5 s %d requests at %s us/request, steady %.0f req/s"
                        " at %s us/request, steady after %s s" % (
                            i, proto, variant[0], r["start_to_listen_s"], r["first5"]["requests"],
                            "%.1f" % r["first5"]["cpu_us_per_request"] if r["first5"]["cpu_us_per_request"] else "-",
                            r["steady_rps"], "%.1f" % r["steady_cpu_us_per_request"] if r["steady_cpu_us_per_request"] else "-",
                            r["seconds_to_steady"]))
                    runs.append(r)
                    time.sleep(1)
    finally:
        procs.stop_all()
        upstream_procs.stop_all()
        with open(os.path.join(out_dir, "runs.json"), "w") as f:
            json.dump(runs, f, indent=1)
    summarize(runs, out_dir, a, dist, variants)


if __name__ == "__main__":
    main()
