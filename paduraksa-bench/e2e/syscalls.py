#!/usr/bin/env python3
"""Syscalls and bytes per proxied request, for Paduraksa, nginx and HAProxy and for the upstream behind
each (issue #14, "A faster HTTP/1.1 forwarding floor"). Counts, not times: they do not depend on how
busy the machine is, so they explain CPU-per-request differences the e2e run shows.

    syscalls.py [--subjects paduraksa,nginx,haproxy] [--seconds 5] [--shape browser|minimal] [--proto h1|h2c]

The site, the upstream (nginx, CPU 0) and the subjects (CPU 1, one worker/thread/event loop) are the e2e
harness's (genconf.py, harness.py). Per subject: a warm-up under load (longer for the JVM), then a
window of load with `strace -c -f` attached to the subject's processes and to the upstream's worker;
the load's own request count divides the calls. Also the upstream connections the subject opened in
the window (the upstream's accept4 calls) next to the client connections (wrk's -c).
strace slows every process it traces, so the window's requests per second mean nothing; what a
request needs (reads, writes, sendmsg, writev) does not change with speed, but
calls that batch (epoll_wait returns more events when each is slower) can: read those as an upper bound.
Also, in a window without strace: voluntary context switches (wake-ups) per request of the subject
and the upstream worker, their CPU per request, and the bytes the upstream received per request (an
access log of $request_length added to the upstream for this script).
With --tracer perf the traced window counts with the kernel's syscall tracepoints (`perf stat -e
syscalls:sys_enter_*`, package linux-perf) instead of strace: in-kernel counters that barely slow the
processes, so calls that batch are counted as they batch without a tracer (epoll_wait, the writes to an
HTTP/2 client); "other" is every call not listed.
Results: results/syscalls-<timestamp>/summary.md and runs.json.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import genconf  # noqa: E402
import harness  # noqa: E402
from harness import Procs, choose_ports, descendants, log, wait_port  # noqa: E402

SHOWN = ["read", "readv", "recvfrom", "recvmsg", "write", "writev", "sendto", "sendmsg", "epoll_wait", "epoll_ctl",
         "accept4", "connect", "close", "setsockopt", "futex"]


PERF_CALLS = SHOWN + ["epoll_pwait", "epoll_pwait2", "io_uring_enter", "getsockopt", "clock_gettime"]


def perf(pids, out):
    events = ",".join("syscalls:sys_enter_" + c for c in PERF_CALLS) + ",raw_syscalls:sys_enter"
    return subprocess.Popen(["perf", "stat", "-x", ",", "-o", out, "-e", events, "-p", ",".join(str(p) for p in pids)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def parse_perf(path):
    """perf stat's CSV: count,unit,event,...; raw_syscalls:sys_enter is every call, "other" what no named one counted."""
    calls, everything = {}, 0
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 3 or not parts[0].isdigit():
                continue
            if parts[2] == "raw_syscalls:sys_enter":
                everything = int(parts[0])
            elif parts[2].startswith("syscalls:sys_enter_") and int(parts[0]) > 0:
                calls[parts[2][len("syscalls:sys_enter_"):]] = int(parts[0])
    if not everything:
        raise SystemExit("syscalls.py: perf counted nothing in %s (is tracefs mounted? mount -t tracefs nodev /sys/kernel/tracing)" % path)
    calls["other"] = everything - sum(calls.values())
    return calls


def strace(pids, out):
    argv = ["strace", "-c", "-f", "-q", "-o", out]
    for p in pids:
        argv += ["-p", str(p)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def parse_strace(path):
    calls = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
            if m and m.group(2) != "total":
                calls[m.group(2)] = calls.get(m.group(2), 0) + int(m.group(1))
    return calls


def switches(pids):
    """Voluntary context switches (sleeps: one per wake-up that found no work left) of all threads."""
    total = 0
    for pid in pids:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                    for line in f:
                        if line.startswith("voluntary_ctxt_switches"):
                            total += int(line.split()[1])
            except OSError:
                pass
    return total


def upstream_conf(raw, ports):
    """genconf's upstream plus an access log of each request's length (head and body bytes received)."""
    conf = genconf.nginx_upstream_conf(raw, ports["up_h1"], ports["up_h2"])
    conf = conf.replace("  access_log off;\n", "  log_format rl '$request_length';\n  access_log %s/upstream-access.log rl;\n" % raw, 1)
    assert "upstream-access.log" in conf
    return conf


def log_lengths(path, offset):
    with open(path) as f:
        f.seek(offset)
        vals = [int(x) for x in f.read().split()]
        return vals, f.tell()


def workers(proc):
    """The processes doing the work: nginx's worker (not the master), HAProxy's and the JVM's only process."""
    kids = descendants(proc.pid)
    return kids if kids else [proc.pid]


def wrk_requests(out):
    m = re.search(r"(\d+) requests in", out)
    return int(m.group(1)) if m else 0


def h2load_requests(out):
    m = re.search(r"requests: \d+ total, \d+ started, (\d+) done", out)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subjects", default="paduraksa,nginx,haproxy")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--jvm-warmup", type=int, default=20)
    ap.add_argument("--shape", default="browser")
    ap.add_argument("--proto", default="h1")
    ap.add_argument("--h1-conns", type=int, default=32)
    ap.add_argument("--h1-threads", type=int, default=2)
    ap.add_argument("--h2-conns", type=int, default=8)
    ap.add_argument("--h2-streams", type=int, default=8)
    ap.add_argument("--h2-threads", type=int, default=2)
    ap.add_argument("--loadgen-cpus", default="")
    ap.add_argument("--rate", type=int, default=0, help="pace the load at this many requests/s (harness.py --rate)")
    ap.add_argument("--paduraksa", default=os.path.join(REPO, "bin", "paduraksa"))
    ap.add_argument("--paduraksa-transport", default="", help="server.transport for Paduraksa (io_uring, epoll, nio)")
    ap.add_argument("--tracer", choices=["strace", "perf"], default="strace",
                    help="count the traced window's calls with strace -c (default) or perf's syscall tracepoints")
    ap.add_argument("--out")
    a = ap.parse_args()
    for tool in (a.tracer, "nginx", "haproxy", "wrk", "h2load", "taskset"):
        if shutil.which(tool) is None:
            raise SystemExit("syscalls.py: %s is missing (apt-get install -y %s nginx-light haproxy wrk nghttp2-client)"
                             % (tool, "linux-perf" if tool == "perf" else "strace"))
    run = a.out or os.path.join(HERE, "results", "syscalls-" + time.strftime("%Y%m%d-%H%M%S"))
    raw = os.path.join(run, "raw")
    os.makedirs(raw, exist_ok=True)
    ports = choose_ports(18000)
    genconf.write_all(raw, ports)
    with open(os.path.join(raw, "upstream.conf"), "w") as f:
        f.write(upstream_conf(raw, ports))
    if a.paduraksa_transport:
        path = os.path.join(raw, "paduraksa.yaml")
        with open(path) as f:
            text = f.read()
        text = text.replace("server: {threads: 1}", "server: {threads: 1, transport: %s}" % a.paduraksa_transport, 1)
        assert "transport: " in text
        with open(path, "w") as f:
            f.write(text)
    procs = Procs(os.path.join(raw, "pids"))
    load = harness.Load(a, raw, procs)
    results = []
    try:
        up = procs.start("upstream", ["taskset", "-c", "0", "nginx", "-c", os.path.join(raw, "upstream.conf"),
                                      "-p", raw, "-g", "daemon off;"], os.path.join(raw, "upstream.out"))
        if not wait_port(ports["up_h1"], up, 10):
            raise SystemExit("upstream nginx did not start; see " + raw)
        upstream_worker = workers(up)[0]
        upstream = harness.Subject("upstream", ports["up_h1"], ports["up_h2"], up)
        for name in a.subjects.split(","):
            s = harness.start_subject(name, procs, raw, ports, upstream, a)
            if s is None:
                raise SystemExit("%s did not start; see %s" % (name, raw))
            port = s.h1 if a.proto == "h1" else s.h2
            load.run(a.proto, port, "proxy", a.shape, a.jvm_warmup if name == "paduraksa" else a.warmup, False)
            time.sleep(1)
            subject_pids = workers(s.proc)
            argv = load.argv(a.proto, port, "proxy", a.shape, a.seconds)
            counter = wrk_requests if a.proto == "h1" else h2load_requests
            # Window 1, untraced: context switches (wake-ups) and what the upstream received per request.
            access = os.path.join(raw, "upstream-access.log")
            _, offset = log_lengths(access, 0)
            cs0, up0 = switches(subject_pids), switches([upstream_worker])
            cpu0, upcpu0 = harness.proc_ticks(subject_pids), harness.proc_ticks([upstream_worker])
            out = subprocess.run(argv, capture_output=True, text=True, timeout=a.seconds + 60).stdout
            cs1, up1 = switches(subject_pids), switches([upstream_worker])
            cpu1, upcpu1 = harness.proc_ticks(subject_pids), harness.proc_ticks([upstream_worker])
            lengths, _ = log_lengths(access, offset)
            n1 = counter(out)
            if n1 == 0:
                raise SystemExit("%s: no requests counted; load output:\n%s" % (name, out))
            # Window 2, traced: syscalls per request.
            tracer = perf if a.tracer == "perf" else strace
            t_sub = tracer(subject_pids, os.path.join(raw, "%s-%s.txt" % (a.tracer, name)))
            t_up = tracer([upstream_worker], os.path.join(raw, "%s-upstream-%s.txt" % (a.tracer, name)))
            time.sleep(1)  # the tracer attached to every thread
            out = subprocess.run(argv, capture_output=True, text=True, timeout=a.seconds + 60).stdout
            time.sleep(0.5)
            for t in (t_sub, t_up):
                t.send_signal(signal.SIGINT)
                t.wait(timeout=30)
            n = counter(out)
            if n == 0:
                raise SystemExit("%s: no requests counted under %s; load output:\n%s" % (name, a.tracer, out))
            parse = parse_perf if a.tracer == "perf" else parse_strace
            sub = parse(os.path.join(raw, "%s-%s.txt" % (a.tracer, name)))
            ups = parse(os.path.join(raw, "%s-upstream-%s.txt" % (a.tracer, name)))
            # the 1 s before and 0.5 s after the traced load add idle calls only: epoll timeouts, timers
            tick = os.sysconf("SC_CLK_TCK")
            results.append({"subject": name, "requests": n, "subject_calls": sub, "upstream_calls": ups,
                            "untraced_requests": n1,
                            "subject_wakeups_per_request": (cs1 - cs0) / n1,
                            "upstream_wakeups_per_request": (up1 - up0) / n1,
                            "subject_cpu_us_per_request": (cpu1 - cpu0) / tick * 1e6 / n1,
                            "upstream_cpu_us_per_request": (upcpu1 - upcpu0) / tick * 1e6 / n1,
                            "upstream_request_bytes": sum(lengths) / len(lengths) if lengths else None,
                            "upstream_connections_opened": ups.get("accept4", 0) + ups.get("accept", 0)})
            log("%s: %d requests; subject %s; upstream %s" % (
                name, n, {k: round(v / n, 2) for k, v in sub.items() if k in SHOWN},
                {k: round(v / n, 2) for k, v in ups.items() if k in SHOWN}))
            procs.started.pop(name)
            for pid in [s.proc.pid] + descendants(s.proc.pid):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            s.proc.wait(timeout=30)
            time.sleep(1)
    finally:
        procs.stop_all()
        with open(os.path.join(run, "runs.json"), "w") as f:
            json.dump(results, f, indent=1)
    lines = ["# Syscalls and bytes per proxied request", "",
             "`paduraksa-bench/e2e/syscalls.py %s` at %s (HTTP %s, %s requests, the e2e site and upstream)."
             % (" ".join(sys.argv[1:]), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.proto, a.shape), "",
             "Calls per request (%s), the subject's processes, then the upstream's worker:"
             % ("perf's syscall tracepoints" if a.tracer == "perf" else "strace -c"), "",
             "| syscall | " + " | ".join(r["subject"] for r in results) + " | " + " | ".join(
                 "upstream behind " + r["subject"] for r in results) + " |",
             "|---|" + "---|" * (2 * len(results))]
    names = sorted({k for r in results for k in list(r["subject_calls"]) + list(r["upstream_calls"])},
                   key=lambda k: (SHOWN.index(k) if k in SHOWN else 100 if k == "other" else 99, k))
    for k in names:
        vals = [r["subject_calls"].get(k, 0) / r["requests"] for r in results] + \
               [r["upstream_calls"].get(k, 0) / r["requests"] for r in results]
        if max(vals) < 0.005:
            continue
        lines.append("| %s | " % k + " | ".join("%.2f" % v for v in vals) + " |")
    lines.append("| **all** | " + " | ".join("%.2f" % (sum(r["subject_calls"].values()) / r["requests"]) for r in results)
                 + " | " + " | ".join("%.2f" % (sum(r["upstream_calls"].values()) / r["requests"]) for r in results) + " |")
    lines += ["", "Untraced window (CPU figures are as noisy as the machine; wake-ups and bytes are not):", "",
              "| subject | wake-ups / request | CPU µs / request | upstream wake-ups / request | upstream CPU µs / request |"
              " bytes the upstream received / request | upstream connections opened (traced window) |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append("| %s | %.3f | %.1f | %.3f | %.1f | %s | %d |" % (
            r["subject"], r["subject_wakeups_per_request"], r["subject_cpu_us_per_request"],
            r["upstream_wakeups_per_request"], r["upstream_cpu_us_per_request"],
            "%.0f" % r["upstream_request_bytes"] if r["upstream_request_bytes"] else "-", r["upstream_connections_opened"]))
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
