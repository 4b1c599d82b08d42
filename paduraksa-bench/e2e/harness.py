#!/usr/bin/python3
"""End-to-end comparison of Paduraksa, nginx and HAProxy (and a direct control) on this machine.

Started by run.sh (which checks the tools and owns the clean-up trap); standard library only.
Every process it starts is recorded in RUN/raw/pids and stopped by PID at the end.
"""
import argparse
import datetime
import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import genconf  # noqa: E402
import report  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
SCENARIOS = ["static", "redirect", "deny", "proxy", "cached"]
# Proxied scenarios: "proxy" to the upstream over HTTP/1.1, "proxy2" over h2c (not in the default
# set; nginx cannot proxy to an HTTP/2 upstream and is skipped there).
PROXIED = ("proxy", "proxy2")
# "cached": /cached through each subject's response cache; the upstream's CPU is recorded to show the hits.
CACHED = ("cached",)
SHAPES = ["minimal", "browser"]
PROTOS = ["h1", "h2c"]
SUBJECTS = ["paduraksa", "nginx", "haproxy", "direct"]
ALLOC_COUNTER = "paduraksa_jvm_allocated_bytes_total"

PORT_OFFSETS = {"up_h1": 0, "up_h2": 1, "nginx_h1": 10, "nginx_h2": 11, "haproxy_h1": 20,
                "haproxy_h2": 21, "pad": 30, "pad_admin": 31}


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# ---------------------------------------------------------------- processes

class Procs:
    """Processes this run started; stopped by PID (and their descendants), never by name."""

    def __init__(self, pidfile):
        self.pidfile = pidfile
        self.started = {}  # name -> Popen

    def start(self, name, argv, logpath, cwd=None, env=None):
        out = open(logpath, "ab")
        # own session: a Ctrl-C on the terminal reaches the harness, which stops these in order
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             cwd=cwd, env=env, start_new_session=True)
        self.started[name] = p
        self.record()
        return p

    def record(self, extra=None):
        if extra is None or not hasattr(self, "known"):
            self.known = set()
            for p in self.started.values():
                self.known.add(p.pid)
                self.known.update(descendants(p.pid))
        pids = self.known | ({extra} if extra else set())
        with open(self.pidfile, "w") as f:
            f.write("".join("%d\n" % x for x in sorted(pids)))

    def stop_all(self):
        for name, p in list(self.started.items()):
            tree = [p.pid] + descendants(p.pid)
            for pid in tree:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                p.wait(timeout=8)
            except subprocess.TimeoutExpired:
                for pid in tree:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                p.wait(timeout=5)
            log("stopped %s (pid %d)" % (name, p.pid))
        self.started.clear()
        if os.path.exists(self.pidfile):
            os.remove(self.pidfile)


def children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                s = f.read()
        except OSError:
            continue
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def descendants(pid):
    kids, out, todo = children_map(), [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def proc_ticks(pids):
    """utime+stime of the processes (each covers all its threads, live and exited)."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rindex(")") + 2:].split()
        total += int(fields[11]) + int(fields[12])
    return total


def system_ticks():
    """(busy, steal) ticks for the whole machine from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
    return user + nice + system + irq + softirq, steal


def port_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # as the servers do: a port with only TIME_WAIT leftovers is free, one with a listener is not
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def choose_ports(base):
    for b in range(base, 19000, 100):
        ports = {k: b + off for k, off in PORT_OFFSETS.items()}
        if all(port_free(p) for p in ports.values()):
            return ports
        log("ports %d-%d: some are in use, trying the next hundred" % (b, b + 99))
    raise SystemExit("no free port block between %d and 18999" % base)


def wait_port(port, proc, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.2)
    return False


# ---------------------------------------------------------------- subjects

class Subject:
    def __init__(self, name, h1, h2, proc=None, admin=None):
        self.name, self.h1, self.h2, self.proc, self.admin = name, h1, h2, proc, admin
        self.skip = {}  # scenario -> reason

    def pids(self):
        return [self.proc.pid] + descendants(self.proc.pid)


def http_get(port, host, path, timeout=3.0):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path, headers={"Host": host, "User-Agent": "paduraksa-e2e-preflight"})
        r = c.getresponse()
        r.read()
        return r.status, r.getheader("Location")
    finally:
        c.close()


def preflight(subj, scenario, run):
    """Checks the exact status on h1 (plain, IDN, wildcard hosts) and the status class on h2c."""
    want = genconf.EXPECT[scenario]
    for host, path in genconf.preflight_requests(scenario):
        try:
            got, loc = http_get(subj.h1, host, path)
        except OSError as e:
            return "h1 %s %s: %s" % (host, path, e)
        if got != want:
            return "h1 Host %s %s answered %d, expected %d" % (host, path, got, want)
        if want == 301 and not loc:
            return "h1 Host %s %s: 301 without Location" % (host, path)
    out = subprocess.run(["h2load", "-n", "4", "-c", "1", "-H", ":authority: " + genconf.MIN_HOST,
                          "http://127.0.0.1:%d%s" % (subj.h2, genconf.minimal_path(scenario))],
                         capture_output=True, text=True, timeout=20).stdout
    codes = parse_h2_codes(out)
    cls = "%dxx" % (want // 100)
    if codes.get(cls, 0) != 4:
        return "h2c answered %s, expected 4 x %s" % (codes or "nothing", cls)
    return None


def metric(admin_port):
    """The allocation counter from the admin listener, or None when absent."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", admin_port, timeout=2)
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace")
        c.close()
    except OSError:
        return None
    if r.status != 200:
        return None
    for line in body.splitlines():
        if line.startswith(ALLOC_COUNTER) and not line.startswith(ALLOC_COUNTER + "_"):
            parts = line.split()
            try:
                return float(parts[-1]) if len(parts) == 2 else float(parts[1])
            except (ValueError, IndexError):
                return None
    return None


# ---------------------------------------------------------------- load

def parse_h2_codes(out):
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
    if not m:
        return {}
    return {k: int(v) for k, v in zip(["2xx", "3xx", "4xx", "5xx"], m.groups()) if int(v)}


def percentile(sorted_vals, q):
    if not sorted_vals:
        return None
    i = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


class Load:
    def __init__(self, args, raw, procs):
        self.a, self.raw, self.procs = args, raw, procs
        self.prefix = ["taskset", "-c", args.loadgen_cpus] if args.loadgen_cpus else []

    def paced_h1(self, proto):
        """HTTP/1.1 through h2load --h1 (paced by --rate; wrk cannot pace) instead of wrk."""
        return proto == "h1" and bool(self.a.rate)

    def argv(self, proto, port, scenario, shape, seconds, logfile=None):
        if proto == "h1" and not self.a.rate:
            reqs = os.path.join(self.raw, "wrk-%s-%s.txt" % (scenario, shape))
            return self.prefix + ["wrk", "-t", str(self.a.h1_threads), "-c", str(self.a.h1_conns),
                                  "-d", "%ds" % seconds, "--timeout", "5s", "-s", os.path.join(HERE, "rotate.lua"),
                                  "http://127.0.0.1:%d" % port, "--", reqs]
        tag = "%s-%s-%d" % (scenario, shape, port)
        if self.paced_h1(proto):
            conns = self.a.h1_conns
            argv = self.prefix + ["h2load", "--h1", "-t", str(self.a.h1_threads), "-c", str(conns), "-D", str(seconds)]
        else:
            conns = self.a.h2_conns
            argv = self.prefix + ["h2load", "-t", str(self.a.h2_threads), "-c", str(conns),
                                  "-m", str(self.a.h2_streams), "-D", str(seconds)]
        if self.a.rate:
            argv.append("--rps=%d" % max(1, round(self.a.rate / conns)))  # h2load paces each connection
        if logfile:
            argv.append("--log-file=" + logfile)
        return argv + genconf.h2load_args(scenario, shape, "http://127.0.0.1:%d" % port, self.raw, tag)

    def run(self, proto, port, scenario, shape, seconds, measure):
        logfile = os.path.join(self.raw, "h2load-requests.log") if (measure and (proto == "h2c" or self.paced_h1(proto))) else None
        argv = self.argv(proto, port, scenario, shape, seconds, logfile)
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.procs.record(extra=p.pid)  # so that run.sh's trap can stop it too
        try:
            out, _ = p.communicate(timeout=seconds + 60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        if not measure:
            return None
        return self.parse(proto, scenario, out, logfile, argv)

    def parse(self, proto, scenario, out, logfile, argv):
        want = genconf.EXPECT[scenario]
        r = {"argv": " ".join(argv)}
        if proto == "h1" and not self.paced_h1(proto):
            m = re.search(r"WRKRESULT (\{.*\})", out)
            if not m:
                raise RuntimeError("wrk printed no result:\n" + out[-2000:])
            w = json.loads(m.group(1))
            r["requests"] = w["requests"]
            r["load_seconds"] = w["duration_us"] / 1e6
            r["errors"] = w["connect"] + w["read"] + w["write"] + w["timeout"]
            # wrk counts every status >= 400 in "status"
            r["bad_status"] = (w["requests"] - w["status"]) if want >= 400 else w["status"]
            r["status_note"] = "%d responses with status >= 400" % w["status"]
            r["p50_us"], r["p99_us"] = w["p50_us"], w["p99_us"]
            return r
        m = re.search(r"finished in ([\d.]+)(m?s)", out)
        if not m:
            raise RuntimeError("h2load printed no result:\n" + out[-2000:])
        rq = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                       r"(\d+) errored, (\d+) timeout", out)
        codes = parse_h2_codes(out)
        done = int(rq.group(3))
        cls = "%dxx" % (want // 100)
        r["requests"] = done
        r["load_seconds"] = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
        r["errors"] = int(rq.group(6)) + int(rq.group(7))
        # with -D, "done" and the status counts can differ by the few requests cut at the end
        r["bad_status"] = sum(codes.values()) - codes.get(cls, 0)
        r["status_note"] = " ".join("%d %s" % (v, k) for k, v in codes.items())
        durs = []
        with open(logfile) as f:
            for line in f:
                parts = line.split("\t")
                if len(parts) >= 3:
                    durs.append(int(parts[2]))
        os.remove(logfile)
        durs.sort()
        r["p50_us"], r["p99_us"] = percentile(durs, 50), percentile(durs, 99)
        return r


# ---------------------------------------------------------------- one measured window

def measure(load, subj, upstream, scenario, shape, proto, a, procs):
    port = subj.h1 if proto == "h1" else subj.h2
    load.run(proto, port, scenario, shape, a.warmup, measure=False)
    sp, upp = subj.pids(), upstream.pids()
    alloc0 = metric(subj.admin) if subj.admin else None
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s0, u0 = proc_ticks(sp), proc_ticks(upp)
    b0, st0 = system_ticks()
    t0 = time.time()
    res = load.run(proto, port, scenario, shape, a.duration, measure=True)
    t1 = time.time()
    s1, u1 = proc_ticks(sp), proc_ticks(upp)
    b1, st1 = system_ticks()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    alloc1 = metric(subj.admin) if subj.admin else None
    window = t1 - t0
    subj_s = (s1 - s0) / TICK
    up_s = (u1 - u0) / TICK
    gen_s = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    busy_s = (b1 - b0) / TICK
    other_s = max(0.0, busy_s - (subj_s if subj.name != "direct" else 0) - up_s - gen_s)
    n = res["requests"]
    rec = dict(res)
    rec.update({
        "window_s": round(window, 3), "rps": round(n / res["load_seconds"], 1) if res["load_seconds"] else 0,
        "subject_cpu_s": round(subj_s, 3), "upstream_cpu_s": round(up_s, 3), "loadgen_cpu_s": round(gen_s, 3),
        "other_cpu_s": round(other_s, 3), "steal_s": round((st1 - st0) / TICK, 3),
        "other_cores": round(other_s / window, 3) if window else None,
    })
    rec["subject_us_per_req"] = round(subj_s * 1e6 / n, 3) if n else None
    rec["upstream_us_per_req"] = round(up_s * 1e6 / n, 3) if n and (scenario in PROXIED or scenario in CACHED) else None
    if scenario in PROXIED and subj.name != "direct" and n and up_s > 0:
        rec["ratio_to_upstream"] = round(subj_s / up_s, 3)
    rec["noisy"] = bool(rec["other_cores"] is not None and
                        (rec["other_cores"] > a.noisy_cores or rec["steal_s"] / window > a.noisy_cores))
    if subj.admin:
        if alloc0 is None or alloc1 is None:
            rec["alloc_note"] = "no %s at http://127.0.0.1:%d/metrics" % (ALLOC_COUNTER, subj.admin)
        elif alloc1 < alloc0:
            rec["alloc_note"] = "counter went backwards (%.0f -> %.0f): sample discarded" % (alloc0, alloc1)
        elif n:
            rec["alloc_b_per_req"] = round((alloc1 - alloc0) / n, 1)
    return rec


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8, help="measured window per run, seconds")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up before each window, seconds")
    ap.add_argument("--quick", action="store_true", help="1 round, 2 s windows, 1 s warm-ups")
    ap.add_argument("--subjects", default=",".join(SUBJECTS))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--protos", default=",".join(PROTOS))
    ap.add_argument("--loadgen-cpus", default="", help="taskset list for wrk/h2load (default: unpinned)")
    ap.add_argument("--rate", type=int, default=0,
                    help="pace every window at this many requests/s (h2load --rps, HTTP/1.1 too, with h2load's fixed "
                         "headers); default 0: as fast as the load generator goes")
    ap.add_argument("--h1-threads", type=int, default=2)
    ap.add_argument("--h1-conns", type=int, default=32)
    ap.add_argument("--h2-threads", type=int, default=2)
    ap.add_argument("--h2-conns", type=int, default=8)
    ap.add_argument("--h2-streams", type=int, default=8)
    ap.add_argument("--jvm-warmup", type=int, default=4, help="seconds per scenario of JIT warm-up for Paduraksa")
    ap.add_argument("--noisy-cores", type=float, default=0.10,
                    help="flag a window when other processes (or steal) used more than this many cores")
    ap.add_argument("--paduraksa", default=os.path.join(REPO, "bin", "paduraksa"),
                    help="the launcher, run as LAUNCHER run --config FILE from the repository root")
    ap.add_argument("--port-base", type=int, default=18000)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--command-line", default="")
    a = ap.parse_args()
    if a.quick:
        a.rounds, a.duration, a.warmup, a.jvm_warmup = 1, 2, 1, 1
    subjects_wanted = a.subjects.split(",")
    scenarios = a.scenarios.split(",")
    shapes, protos = a.shapes.split(","), a.protos.split(",")

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run = os.path.join(a.out, stamp + ("-quick" if a.quick else ""))
    raw = os.path.join(run, "raw")
    os.makedirs(raw)
    log("results in " + run)
    procs = Procs(os.path.join(raw, "pids"))
    # run.sh's trap reads this pointer to stop what is left if this process dies abruptly
    pointer = os.environ.get("E2E_PIDFILE_POINTER") or os.path.join(a.out, ".current-pidfile")
    with open(pointer, "w") as f:
        f.write(procs.pidfile + "\n")

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    started = time.time()
    try:
        ports = choose_ports(a.port_base)
        genconf.write_all(raw, ports)
        env_info = environment(ports, a)
        env_info["command"] = a.command_line or " ".join(sys.argv)
        with open(os.path.join(run, "env.json"), "w") as f:
            json.dump(env_info, f, indent=1)

        up = procs.start("upstream", ["taskset", "-c", "0", "nginx", "-c", os.path.join(raw, "upstream.conf"),
                                      "-p", raw, "-g", "daemon off;"], os.path.join(raw, "upstream.out"))
        if not wait_port(ports["up_h1"], up, 10):
            raise SystemExit("upstream nginx did not start; see " + raw)
        upstream = Subject("upstream", ports["up_h1"], ports["up_h2"], up)
        subjects = []
        for name in subjects_wanted:
            s = start_subject(name, procs, raw, ports, upstream, a)
            if s:
                subjects.append(s)
        procs.record()

        for s in subjects:
            for sc in scenarios:
                if s.name == "direct" and sc not in PROXIED:
                    continue
                why = "nginx cannot proxy to an HTTP/2 upstream" if (s.name, sc) == ("nginx", "proxy2") else preflight(s, sc, raw)
                if why:
                    s.skip[sc] = why
                    log("%s %s: %s" % (s.name, sc, why))
        for s in subjects:
            if s.name == "paduraksa":
                jvm_warmup(s, Load(a, raw, procs), a, scenarios)

        load = Load(a, raw, procs)
        runs_path = os.path.join(run, "runs.jsonl")
        # scenario innermost: a subject's windows of one shape and protocol run seconds apart, so a ratio
        # between two of its scenarios (a cache hit over its own gate answer) is not one of drift
        cells = [(sc, sh, pr) for sh in shapes for pr in protos for sc in scenarios]
        total = sum(1 for sc, _, _ in cells for s in subjects if applies(s, sc)) * a.rounds
        done = 0
        with open(runs_path, "w") as out:
            for s in subjects:
                for sc, why in s.skip.items():
                    out.write(json.dumps({"round": 0, "subject": s.name, "scenario": sc, "skipped": why}) + "\n")
            for rnd in range(1, a.rounds + 1):
                order = subjects if rnd % 2 == 1 else list(reversed(subjects))
                log("round %d/%d, order %s" % (rnd, a.rounds, " ".join(s.name for s in order)))
                for sc, sh, pr in cells:
                    for pos, s in enumerate(order):
                        if not applies(s, sc):
                            continue
                        try:
                            rec = measure(load, s, upstream, sc, sh, pr, a, procs)
                        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                            log("%s %s %s %s: window failed: %s" % (s.name, sc, sh, pr, str(e).strip()[-300:]))
                            out.write(json.dumps({"round": rnd, "subject": s.name, "scenario": sc, "shape": sh,
                                                  "proto": pr, "failed": str(e)[-1000:]}) + "\n")
                            for who in (s, upstream):
                                if who.proc.poll() is not None:
                                    raise SystemExit("%s exited (code %s); see %s" % (who.name, who.proc.returncode, raw))
                            done += 1
                            continue
                        rec.update({"round": rnd, "position": pos, "subject": s.name, "scenario": sc,
                                    "shape": sh, "proto": pr})
                        out.write(json.dumps(rec) + "\n")
                        out.flush()
                        done += 1
                        log("%3d/%d r%d %-9s %-8s %-7s %-3s %9.0f req/s  %7.2f us/req%s%s%s" % (
                            done, total, rnd, s.name, sc, sh, pr, rec["rps"], rec["subject_us_per_req"] or 0,
                            "  x%.2f upstream" % rec["ratio_to_upstream"] if "ratio_to_upstream" in rec else "",
                            "  NOISY(other %.2f cores)" % rec["other_cores"] if rec["noisy"] else "",
                            "  BAD %d" % (rec["bad_status"] + rec["errors"]) if rec["bad_status"] + rec["errors"] else ""))
    except KeyboardInterrupt as e:
        log("interrupted (%s): cleaning up" % e)
        procs.stop_all()
        raise SystemExit(130)
    finally:
        procs.stop_all()
    elapsed = time.time() - started
    with open(os.path.join(run, "env.json")) as f:
        env_info = json.load(f)
    env_info["elapsed_s"] = round(elapsed)
    with open(os.path.join(run, "env.json"), "w") as f:
        json.dump(env_info, f, indent=1)
    report.write(run)
    latest = os.path.join(a.out, "latest")
    subset = (a.subjects, a.scenarios, a.shapes, a.protos) != (",".join(SUBJECTS), ",".join(SCENARIOS),
                                                                ",".join(SHAPES), ",".join(PROTOS))
    if not a.quick and not subset:
        publish_latest(run, latest)  # a run of a subset (--scenarios, ...) is not the newest full run
    log("done in %dm%02ds; summary: %s" % (elapsed // 60, elapsed % 60, os.path.join(run, "summary.md")))


def applies(s, sc):
    if s.name == "direct":
        return sc in PROXIED
    return sc not in s.skip


def start_subject(name, procs, raw, ports, upstream, a):
    if name == "direct":
        return Subject("direct", ports["up_h1"], ports["up_h2"], upstream.proc)
    if name == "nginx":
        p = procs.start(name, ["taskset", "-c", "1", "nginx", "-c", os.path.join(raw, "nginx.conf"), "-p", raw,
                               "-g", "daemon off;"], os.path.join(raw, "nginx.out"))
        h1, h2 = ports["nginx_h1"], ports["nginx_h2"]
        admin = None
    elif name == "haproxy":
        p = procs.start(name, ["taskset", "-c", "1", "haproxy", "-db", "-f", os.path.join(raw, "haproxy.cfg")],
                        os.path.join(raw, "haproxy.out"))
        h1, h2 = ports["haproxy_h1"], ports["haproxy_h2"]
        admin = None
    elif name == "paduraksa":
        launcher = os.path.abspath(a.paduraksa)
        if not os.access(launcher, os.X_OK):
            log("paduraksa: SKIPPED, %s is missing (the launcher is not built yet)" % launcher)
            return None
        env = dict(os.environ)
        jdk = "/usr/lib/jvm/temurin-25-jdk-amd64"
        if "JAVA_HOME" not in env and os.path.isdir(jdk):
            env["JAVA_HOME"] = jdk
        # one event-loop thread comes from the generated config (server.threads: 1); JAVA_OPTS passes through
        p = procs.start(name, ["taskset", "-c", "1", launcher, "run", "--config", os.path.join(raw, "paduraksa.yaml")],
                        os.path.join(raw, "paduraksa.out"), cwd=REPO, env=env)
        h1 = h2 = ports["pad"]
        admin = ports["pad_admin"]
    else:
        raise SystemExit("unknown subject " + name)
    if not wait_port(h1, p, 90 if name == "paduraksa" else 10):
        log("%s: SKIPPED, did not start listening on %d (see %s)" % (name, h1, raw))
        return None
    time.sleep(0.5)
    log("%s up, pid %d (+%d children), listening on %d/%d" % (name, p.pid, len(descendants(p.pid)), h1, h2))
    s = Subject(name, h1, h2, p, admin)
    if admin is not None and metric(admin) is None:
        log("paduraksa: no %s on http://127.0.0.1:%d/metrics: bytes per request will be skipped" % (ALLOC_COUNTER, admin))
    return s


def jvm_warmup(s, load, a, scenarios):
    log("paduraksa: JIT warm-up, %d s per scenario and protocol" % a.jvm_warmup)
    for sc in scenarios:
        if sc in s.skip:
            continue
        for pr in PROTOS:
            load.run(pr, s.h1 if pr == "h1" else s.h2, sc, "browser", a.jvm_warmup, measure=False)


def tool_version(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        line = (p.stdout + p.stderr).strip().splitlines()[0]
        return re.sub(r" (Copyright|- https).*", "", line)
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def environment(ports, a):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    jdk = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
    git = subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h %s"], capture_output=True, text=True).stdout.strip()
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "kernel": os.uname().release, "cpus": os.cpu_count(), "cpu_model": model,
        "os": open("/etc/os-release").read().split('PRETTY_NAME="')[1].split('"')[0],
        "nginx": tool_version(["nginx", "-v"]), "haproxy": tool_version(["haproxy", "-v"]),
        "wrk": tool_version(["wrk", "-v"]), "h2load": tool_version(["h2load", "--version"]),
        "jdk": tool_version([jdk, "-version"]) if os.path.exists(jdk) else "none",
        "paduraksa_commit": git, "ports": ports,
        "settings": {k: v for k, v in vars(a).items() if k not in ("out", "command_line")},
        "loadavg_at_start": open("/proc/loadavg").read().split()[:3],
    }


def publish_latest(run, latest):
    """results/latest/ holds the committed summary of the newest full run (raw files stay out of git)."""
    if os.path.isdir(latest):
        shutil.rmtree(latest)
    os.makedirs(latest)
    for name in ("summary.md", "summary.json", "runs.jsonl", "chart.svg", "env.json"):
        src = os.path.join(run, name)
        if os.path.exists(src):
            shutil.copy(src, latest)
    with open(os.path.join(latest, "FROM"), "w") as f:
        f.write(os.path.basename(run) + "\n")


if __name__ == "__main__":
    main()
