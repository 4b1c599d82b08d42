#!/usr/bin/python3
"""WAF bench: Paduraksa's `attacks` policy next to nginx + ModSecurity v3 + CRS 3.3 on the same payloads.

Started by run.sh (tool checks, clean-up trap). Standard library only; no network beyond 127.0.0.1.
  1. detection: every stage of CRS 3.3.4's own regression tests (data/crs-3.3.4-tests.jsonl) sent
     byte for byte to every subject; 403 = denied.
  2. false positives: the seeded benign corpus (gen_benign.py, generated at run time) to every subject.
  3. cost: wrk with the e2e harness's browser-like rows, gate-answered (every subject answers 200
     itself), CPU per request of the subject from /proc/PID/stat.
Every process it starts is stopped by PID at the end.
"""
import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
E2E = os.path.join(REPO, "paduraksa-bench", "e2e")
sys.path.insert(0, HERE)
sys.path.insert(0, E2E)
import conf  # noqa: E402
import gen_benign  # noqa: E402
import genconf  # noqa: E402  (e2e: browser-like headers and paths)
from harness import Procs, descendants, proc_ticks, wait_port, port_free, log, TICK  # noqa: E402

CRS_DATA = os.path.join(HERE, "data", "crs-3.3.4-tests.jsonl")
# CRS 920450 (restricted headers): the one rule whose tests send Accept-Charset as their payload.
ACCEPT_CHARSET_RULE = 920450
GROUP_NAMES = {913: "913 scanner detection", 920: "920 protocol enforcement", 921: "921 protocol attack",
               930: "930 LFI", 932: "932 RCE", 933: "933 PHP", 941: "941 XSS", 942: "942 SQLi", 944: "944 Java"}


# ---------------------------------------------------------------- requests on the wire

def enc_crs(s):
    """CRS's YAML writes raw bytes as \\xNN escapes: code points < 256 are bytes; anything else UTF-8."""
    if s is None:
        return b""
    return s.encode("latin-1") if all(ord(c) < 256 for c in s) else s.encode("utf-8")


def enc_utf8(s):
    return b"" if s is None else s.encode("utf-8")


def build(row, enc, form_default=False, harness_charset=True):
    """The request's bytes. form_default: a body without Content-Type gets
    application/x-www-form-urlencoded (CRS's tests write form bodies without it and expect the rules on
    ARGS to see them, which ModSecurity only does for a form content type). harness_charset=False
    leaves out the Accept-Charset header of every stage but CRS's own 920450 tests: it is ftw's default
    header, not the payload, and CRS 3.3.4 scores it critical by itself (920450), so with it a stage is
    denied whatever its payload (--crs-headers sends it)."""
    if row.get("raw"):
        return enc(row["raw"])
    headers = [(k, v) for k, v in row["headers"]
               if harness_charset or row.get("rule") == ACCEPT_CHARSET_RULE or k.lower() != "accept-charset"]
    names = {k.lower() for k, _ in headers}
    body = enc(row.get("body")) if row.get("body") is not None else b""
    if body and "content-length" not in names and "transfer-encoding" not in names:
        headers.append(("Content-Length", str(len(body))))
    if body and form_default and "content-type" not in names:
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    if "connection" not in names:
        headers.append(("Connection", "close"))
    head = "%s %s %s\r\n" % (row["method"], row["uri"], row.get("version") or "HTTP/1.1")
    return enc(head) + b"".join(enc("%s: %s\r\n" % (k, v)) for k, v in headers) + b"\r\n" + body


STATUS = re.compile(rb"^HTTP/\d\.\d (\d\d\d)")


def send(port, data, timeout=10.0):
    """Status code of the answer, 0 when the connection closed (or timed out) before a status line."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return -1
    try:
        s.sendall(data)
        buf = b""
        while b"\r\n" not in buf and len(buf) < 4096:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
        m = STATUS.match(buf)
        return int(m.group(1)) if m else 0
    except OSError:
        return 0
    finally:
        s.close()


def replay(port, payloads, workers=4):
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        return list(ex.map(lambda d: send(port, d), payloads))


# ---------------------------------------------------------------- subjects

def start_nginx(procs, run, name, port, modsec_rules=None):
    path = conf.nginx_conf(run, name, port, modsec_rules)
    os.makedirs(os.path.join(run, name + "-body"), exist_ok=True)
    p = procs.start(name, ["taskset", "-c", "1", "nginx", "-c", path, "-p", run, "-g", "daemon off;"],
                    os.path.join(run, name + ".out"))
    if not wait_port(port, p, 30):
        raise SystemExit("%s did not start; see %s" % (name, run))
    log("%s up, pid %d, port %d" % (name, p.pid, port))
    return p


def paduraksa_env():
    env = dict(os.environ)
    jdk = "/usr/lib/jvm/temurin-25-jdk-amd64"
    if "JAVA_HOME" not in env and os.path.isdir(jdk):
        env["JAVA_HOME"] = jdk
    return env


def paduraksa_check(launcher, cfg):
    r = subprocess.run([launcher, "check", "--config", cfg], capture_output=True, text=True, cwd=REPO,
                       env=paduraksa_env(), timeout=900)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def start_paduraksa(procs, run, launcher, name, cfg, port):
    p = procs.start(name, ["taskset", "-c", "1", launcher, "run", "--config", cfg], os.path.join(run, name + ".out"),
                    cwd=os.path.dirname(os.path.dirname(launcher)), env=paduraksa_env())
    if not wait_port(port, p, 120):
        log("%s did not start; see %s" % (name, os.path.join(run, name + ".out")))
        return None
    log("%s up, pid %d, port %d" % (name, p.pid, port))
    return p


# ---------------------------------------------------------------- cost

def cost_requests(run):
    hosts = conf.HOSTS
    lines = []
    for k in range(1024):
        host = hosts[k % len(hosts)]
        hdrs = genconf.browser_headers(host, k)
        lines.append(genconf.browser_path("static", k) + "\t" + "\t".join("%s: %s" % hv for hv in hdrs))
    path = os.path.join(run, "wrk-browser.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def wrk(port, reqfile, seconds, conns):
    argv = ["taskset", "-c", "0", "wrk", "-t", "1", "-c", str(conns), "-d", "%ds" % seconds, "--timeout", "5s",
            "-s", os.path.join(E2E, "rotate.lua"), "http://127.0.0.1:%d" % port, "--", reqfile]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60).stdout
    m = re.search(r"WRKRESULT (\{.*\})", out)
    if not m:
        raise RuntimeError("wrk printed no result:\n" + out[-2000:])
    return json.loads(m.group(1))


def measure_cost(name, proc, port, reqfile, a):
    wrk(port, reqfile, a.warmup, a.conns)
    tree = [proc.pid] + descendants(proc.pid)
    t0 = proc_ticks(tree)
    w = wrk(port, reqfile, a.duration, a.conns)
    t1 = proc_ticks(tree)
    cpu_s = (t1 - t0) / TICK
    req = max(w["requests"], 1)
    row = {"subject": name, "requests": w["requests"], "seconds": w["duration_us"] / 1e6,
           "rps": w["requests"] / (w["duration_us"] / 1e6), "cpu_s": cpu_s, "cpu_us_per_req": cpu_s * 1e6 / req,
           "errors": w["connect"] + w["read"] + w["write"] + w["timeout"], "status_ge_400": w["status"],
           "p50_us": w["p50_us"], "p99_us": w["p99_us"]}
    log("cost %-28s %8.0f req/s  %6.1f us CPU/req  (%d non-2xx, %d errors)" % (
        name, row["rps"], row["cpu_us_per_req"], row["status_ge_400"], row["errors"]))
    return row


# ---------------------------------------------------------------- tables

AUDIT_ID = re.compile(r'\[id "(\d+)"\]')
AUDIT_PART = re.compile(r"^-+[0-9A-Za-z]+-+([A-Z])--$")


def rules_fired(path, offset):
    """Counter: rule id -> number of logged transactions it fired in, from a Serial audit log from offset on."""
    c = collections.Counter()
    if not os.path.exists(path):
        return c
    with open(path, "rb") as f:
        f.seek(offset)
        text = f.read().decode("utf-8", "replace")
    ids = set()
    for line in text.splitlines():
        m = AUDIT_PART.match(line)
        if m and m.group(1) == "A":
            c.update(ids)
            ids = set()
        ids.update(x for x in AUDIT_ID.findall(line) if not x.startswith("949") and not x.startswith("980"))
    c.update(ids)
    return c


def fired_table(fired, total):
    out = ["### ModSecurity: CRS rules that fired on the benign requests it refused\n",
           "Requests (of %d) in which each rule fired, from ModSecurity's audit log; the 10 most frequent per PL.\n" % total,
           "| PL | rule | requests |", "|---|---|---|"]
    for pl, c in sorted(fired.items()):
        for rid, n in c.most_common(10):
            out.append("| PL%d | %s | %d |" % (pl, rid, n))
    out.append("")
    return out


def pct(n, d):
    return "-" if d == 0 else "%.1f%%" % (100.0 * n / d)


def detection_tables(crs, results, pls, subjects):
    out = []
    for title, keep in (("all payloads", lambda r: True),
                        ("payloads outside the body (URI, headers)", lambda r: r["where"] not in ("body", "raw"))):
        out.append("### Detection, %s: share of CRS attack payloads denied (403)\n" % title)
        head = "| rule group |" + "".join(" PL%d n |" % pl + "".join(" %s PL%d |" % (s, pl) for s in subjects) for pl in pls)
        out.append(head)
        out.append("|---|" + "---|" * (len(pls) * (1 + len(subjects))))
        groups = sorted({r["group"] for r in crs})
        for g in groups + ["all"]:
            cells = []
            for pl in pls:
                idx = [i for i, r in enumerate(crs) if r["expect"] and (g == "all" or r["group"] == g)
                       and (r["pl"] or 1) <= pl and keep(r)]
                cells.append(str(len(idx)))
                for s in subjects:
                    st = results.get((s, pl))
                    cells.append("n/a" if st is None else pct(sum(1 for i in idx if st[i] == 403), len(idx)))
            label = "**all**" if g == "all" else GROUP_NAMES.get(g, str(g))
            out.append("| %s | %s |" % (label, " | ".join(cells)))
        out.append("")
    # CRS's own negative tests
    out.append("### CRS's negative tests (stages that expect a rule NOT to log): share denied\n")
    out.append("| PL | n |" + "".join(" %s |" % s for s in subjects))
    out.append("|---|---|" + "---|" * len(subjects))
    for pl in pls:
        idx = [i for i, r in enumerate(crs) if not r["expect"] and (r["pl"] or 1) <= pl]
        cells = [str(len(idx))]
        for s in subjects:
            st = results.get((s, pl))
            cells.append("n/a" if st is None else pct(sum(1 for i in idx if st[i] == 403), len(idx)))
        out.append("| PL%d | %s |" % (pl, " | ".join(cells)))
    out.append("")
    return out


def fp_tables(benign, results, pls, subjects):
    out = ["### False positives: share of %d benign requests not answered 200 (403 in brackets)\n" % len(benign)]
    kinds = sorted({b["kind"] for b in benign})
    out.append("| kind | n |" + "".join("".join(" %s PL%d |" % (s, pl) for s in subjects) for pl in pls))
    out.append("|---|---|" + "---|" * (len(pls) * len(subjects)))
    def has_json_cookie(b):
        return any(k.lower() == "cookie" and ("={%22" in v or "=%7B%22" in v) for k, v in b["headers"])
    for k in kinds + ["with a JSON-valued cookie", "without", "all"]:
        idx = [i for i, b in enumerate(benign) if k == "all" or b["kind"] == k
               or (k == "with a JSON-valued cookie" and has_json_cookie(b)) or (k == "without" and not has_json_cookie(b))]
        cells = [str(len(idx))]
        for pl in pls:
            for s in subjects:
                st = results.get((s, pl))
                if st is None:
                    cells.append("n/a")
                else:
                    bad = sum(1 for i in idx if st[i] != 200)
                    den = sum(1 for i in idx if st[i] == 403)
                    cells.append("%s (%s)" % (pct(bad, len(idx)), pct(den, len(idx))))
        out.append("| %s | %s |" % ("**all**" if k == "all" else k, " | ".join(cells)))
    out.append("")
    return out


def cost_table(rows):
    out = ["### Cost: gate-answered browser-like HTTP/1.1 rows (wrk, keep-alive), subject pinned to CPU 1\n",
           "Median window of %d per subject (min-max in brackets).\n" % max(collections.Counter(r["subject"] for r in rows).values()),
           "| subject | requests/s | CPU µs per request | x Paduraksa without policy | non-2xx | p99 µs |",
           "|---|---|---|---|---|---|"]
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault(r["subject"], []).append(r)
    med = {}
    for name, rs in by.items():
        rs = sorted(rs, key=lambda r: r["cpu_us_per_req"])
        med[name] = (rs[len(rs) // 2], rs[0]["cpu_us_per_req"], rs[-1]["cpu_us_per_req"])
    base = med["paduraksa"][0]["cpu_us_per_req"] if "paduraksa" in med else None
    for name, (r, lo, hi) in med.items():
        ratio = "-" if not base else "%.2f" % (r["cpu_us_per_req"] / base)
        out.append("| %s | %.0f | %.1f (%.1f-%.1f) | %s | %d | %d |" % (
            name, r["rps"], r["cpu_us_per_req"], lo, hi, ratio, r["status_ge_400"], r["p99_us"]))
    out.append("")
    return out


# ---------------------------------------------------------------- main

def load_crs():
    rows = []
    with open(CRS_DATA, encoding="utf-8") as f:
        origin = json.loads(f.readline())["_origin"]
        for line in f:
            rows.append(json.loads(line))
    return origin, rows


def check_data(a):
    """Offline sanity check of the committed data and the generator (fast; for CI)."""
    checks = []
    origin, crs = load_crs()
    checks.append(("CRS data names its origin commit", len(origin.get("commit", "")) == 40))
    checks.append(("CRS data has >= 2000 stages", len(crs) >= 2000))
    checks.append(("every CRS stage builds to a request with a complete head", all(
        b"\r\n\r\n" in build(r, enc_crs, True, harness) for r in crs for harness in (True, False))))
    checks.append(("only CRS's 920450 stages keep Accept-Charset by default", all(
        (b"\r\naccept-charset:" in build(r, enc_crs, True, False).lower()) == (
            r["rule"] == ACCEPT_CHARSET_RULE and any(k.lower() == "accept-charset" for k, _ in r["headers"]))
        for r in crs if not r.get("raw"))))
    checks.append(("every tested group has PL1 attack payloads", all(
        any(r["group"] == g and r["expect"] and (r["pl"] or 1) == 1 for r in crs) for g in GROUP_NAMES)))
    b1 = list(gen_benign.generate(a.seed, a.benign))
    b2 = list(gen_benign.generate(a.seed, a.benign))
    checks.append(("benign corpus has %d requests" % a.benign, len(b1) == a.benign))
    checks.append(("benign corpus is the same for the same seed", b1 == b2))
    checks.append(("every benign request builds", all(build(b, enc_utf8).endswith(enc_utf8(b["body"] or "")) for b in b1)))
    with open(os.path.join(HERE, "data", "benign-sample.jsonl"), encoding="utf-8") as f:
        sample = [json.loads(x) for x in f]
    checks.append(("data/benign-sample.jsonl is the generator's first lines at the default seed",
                   sample == list(gen_benign.generate(20261201, len(sample)))))
    failed = 0
    for name, ok in checks:
        print("%s  %s" % ("ok  " if ok else "FAIL", name))
        failed += 0 if ok else 1
    print("%d passed, %d failed" % (len(checks) - failed, failed))
    return 1 if failed else 0


def tool_version(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (r.stdout + r.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def main():
    ap = argparse.ArgumentParser(description="WAF bench: Paduraksa attacks policy vs nginx + ModSecurity + CRS 3.3")
    ap.add_argument("--pls", default="1,2", help="paranoia levels (default 1,2)")
    ap.add_argument("--threshold", type=int, default=5)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--benign", type=int, default=10000, help="benign requests (default 10000)")
    ap.add_argument("--paduraksa", default=os.path.join(REPO, "bin", "paduraksa"), help="launcher")
    ap.add_argument("--no-paduraksa", action="store_true", help="ModSecurity only")
    ap.add_argument("--skip-cost", action="store_true")
    ap.add_argument("--crs-headers", action="store_true",
                    help="send every CRS stage with ftw's Accept-Charset (by default only CRS's 920450 tests keep it)")
    ap.add_argument("--cost-only", action="store_true",
                    help="only the cost part (no detection replay; results/latest is left alone)")
    ap.add_argument("--named-headers", action="store_true",
                    help="cost also of the attacks policy with all_headers off (User-Agent and Referer only)")
    ap.add_argument("--duration", type=int, default=8, help="seconds per cost window")
    ap.add_argument("--rounds", type=int, default=3, help="cost rounds; the table shows the median window")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--jvm-warmup", type=int, default=10)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--port-base", type=int, default=19200)
    ap.add_argument("--out", default=None)
    ap.add_argument("--command-line", default="")
    ap.add_argument("--check-data", action="store_true",
                    help="only parse the CRS data and generate the benign corpus, build every request, check counts; no servers")
    a = ap.parse_args()
    pls = [int(x) for x in a.pls.split(",")]
    if a.check_data:
        return check_data(a)

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    run = os.path.abspath(a.out or os.path.join(HERE, "results", stamp))
    raw = os.path.join(run, "raw")
    os.makedirs(raw, exist_ok=True)
    base = a.port_base
    while any(not port_free(base + i) for i in range(50)):
        base += 100
    port = {"ng": base, "pad": base + 1, "pad_admin": base + 2}
    for pl in pls:
        port["ms%d" % pl] = base + 10 + pl
        port["pad%d" % pl] = base + 20 + pl
        port["pad%d_admin" % pl] = base + 30 + pl
        port["msc%d" % pl] = base + 35 + pl
        port["pad%d_named" % pl] = base + 40 + pl
        port["pad%d_named_admin" % pl] = base + 45 + pl

    pidfile = os.path.join(raw, "pids")
    pointer = os.environ.get("WAF_PIDFILE_POINTER")
    if pointer:
        with open(pointer, "w") as f:
            f.write(pidfile)
    procs = Procs(pidfile)

    origin, crs = load_crs()
    benign = list(gen_benign.generate(a.seed, a.benign))
    crs_payloads = [build(r, enc_crs, form_default=True, harness_charset=a.crs_headers) for r in crs]
    benign_payloads = [build(b, enc_utf8) for b in benign]
    log("CRS %s (%s): %d stages, %d expected to trigger; benign corpus: %d requests (seed %d)" % (
        origin["ref"], origin["commit"][:12], len(crs), sum(r["expect"] for r in crs), len(benign), a.seed))

    launcher = os.path.abspath(a.paduraksa)
    pad_note = None
    pad_cfgs = {}
    if a.no_paduraksa:
        pad_note = "not run (--no-paduraksa)"
    elif not os.access(launcher, os.X_OK):
        pad_note = "not available: no launcher at %s" % launcher
    else:
        for pl in pls:
            cfg = conf.paduraksa_yaml(raw, "paduraksa-pl%d" % pl, port["pad%d" % pl], port["pad%d_admin" % pl], pl, a.threshold)
            ok, msg = paduraksa_check(launcher, cfg)
            if not ok:
                pad_note = "not available: `paduraksa check` refuses the attacks policy: " + " ".join(
                    [x.replace(raw + "/", "") for x in msg.splitlines() if "building the server" not in x][:3])
                break
            pad_cfgs[pl] = cfg
    if pad_note:
        log("paduraksa: " + pad_note)
        pad_cfgs = {}

    results = {}  # (subject, pl) -> statuses (crs + benign)
    fired = {}  # pl -> Counter of CRS rule ids on the benign requests ModSecurity refused
    cost_rows = []
    env = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": a.command_line, "crs_data": origin, "seed": a.seed, "benign": a.benign, "pls": pls,
           "threshold": a.threshold, "paduraksa": pad_note or launcher,
           "nginx": tool_version(["nginx", "-v"]),
           "packages": subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", "nginx", "nginx-light",
                                       "libnginx-mod-http-modsecurity", "libmodsecurity3", "modsecurity-crs",
                                       "libnginx-mod-http-echo"], capture_output=True, text=True).stdout.split("\n"),
           "paduraksa_commit": subprocess.run(["git", "-C", os.path.dirname(os.path.dirname(launcher)), "rev-parse", "HEAD"],
                                              capture_output=True, text=True).stdout.strip()}
    try:
        subs = []
        audits = {}
        for pl in pls:
            audits[pl] = os.path.join(raw, "modsec-audit-pl%d.log" % pl)
            if a.cost_only:
                continue
            rules = conf.modsecurity_conf(raw, pl, a.threshold, audits[pl])
            subs.append(("modsecurity", pl, port["ms%d" % pl], start_nginx(procs, raw, "nginx-modsec-pl%d" % pl, port["ms%d" % pl], rules)))
        for pl, cfg in pad_cfgs.items():
            p = start_paduraksa(procs, raw, launcher, "paduraksa-pl%d" % pl, cfg, port["pad%d" % pl])
            if p is not None:
                subs.append(("paduraksa", pl, port["pad%d" % pl], p))
        for name, pl, prt, _ in ([] if a.cost_only else subs):
            t = time.time()
            st = replay(prt, crs_payloads)
            mark = os.path.getsize(audits[pl]) if name == "modsecurity" and os.path.exists(audits[pl]) else 0
            st += replay(prt, benign_payloads)
            if name == "modsecurity":
                fired[pl] = rules_fired(audits[pl], mark)
            results[(name, pl)] = st
            c = collections.Counter(st)
            log("replayed %d requests to %s PL%d in %.0f s: %s" % (len(st), name, pl, time.time() - t,
                                                                  ", ".join("%s x%d" % kv for kv in sorted(c.items()))))
        with open(os.path.join(run, "statuses.jsonl"), "w") as f:
            for (name, pl), st in sorted(results.items()):
                f.write(json.dumps({"subject": name, "pl": pl,
                                    "crs": {r["id"]: s for r, s in zip(crs, st[:len(crs)])},
                                    "benign": {b["id"]: s for b, s in zip(benign, st[len(crs):])}}) + "\n")

        if not a.skip_cost:
            reqfile = cost_requests(raw)
            ng = start_nginx(procs, raw, "nginx-plain", port["ng"])
            cost_subjects = []
            pad_plain = None
            if not a.no_paduraksa and os.access(launcher, os.X_OK):
                cfg = conf.paduraksa_yaml(raw, "paduraksa-plain", port["pad"], port["pad_admin"])
                pad_plain = start_paduraksa(procs, raw, launcher, "paduraksa-plain", cfg, port["pad"])
            if pad_plain is not None:
                cost_subjects.append(("paduraksa", pad_plain, port["pad"], True))
            for name, pl, prt, p in subs:
                if name == "paduraksa":
                    cost_subjects.append(("paduraksa + attacks PL%d" % pl, p, prt, True))
            if a.named_headers and pad_plain is not None:
                for pl in pls:
                    prt = port["pad%d_named" % pl]
                    cfg = conf.paduraksa_yaml(raw, "paduraksa-pl%d-named" % pl, prt, port["pad%d_named_admin" % pl], pl,
                                              a.threshold, all_headers=False)
                    p = start_paduraksa(procs, raw, launcher, "paduraksa-pl%d-named" % pl, cfg, prt)
                    if p is not None:
                        cost_subjects.append(("paduraksa + attacks PL%d, named headers" % pl, p, prt, True))
            cost_subjects.append(("nginx (echo)", ng, port["ng"], False))
            for pl in pls:  # fresh instances without the audit log
                rules = conf.modsecurity_conf(raw, pl, a.threshold)
                p = start_nginx(procs, raw, "nginx-modsec-cost-pl%d" % pl, port["msc%d" % pl], rules)
                cost_subjects.append(("nginx + ModSecurity + CRS PL%d" % pl, p, port["msc%d" % pl], False))
            for name, p, prt, jvm in cost_subjects:
                if jvm and a.jvm_warmup:
                    wrk(prt, reqfile, a.jvm_warmup, a.conns)
            for rnd in range(a.rounds):  # subjects in turn, reversed on even rounds, so drift is shared
                order = cost_subjects if rnd % 2 == 0 else list(reversed(cost_subjects))
                for name, p, prt, jvm in order:
                    row = measure_cost(name, p, prt, reqfile, a)
                    row["round"] = rnd + 1
                    cost_rows.append(row)
    finally:
        procs.stop_all()

    subjects = ["ModSecurity+CRS", "Paduraksa"]
    named = {}
    for (name, pl), st in results.items():
        named[("ModSecurity+CRS" if name == "modsecurity" else "Paduraksa", pl)] = st
    crs_res = {k: v[:len(crs)] for k, v in named.items()}
    ben_res = {k: v[len(crs):] for k, v in named.items()}
    md = ["# WAF bench %s" % env["date"], "",
          "Command: `%s`  " % a.command_line,
          "CRS tests: %s %s (%s), %d stages; benign corpus: %d requests, seed %d; threshold %d  " % (
              origin["repository"], origin["ref"], origin["commit"], len(crs), len(benign), a.seed, a.threshold),
          "Paduraksa: %s  " % (pad_note or "%s at %s" % (launcher, env["paduraksa_commit"])),
          "Packages: %s" % "; ".join(x for x in env["packages"] if x), ""]
    md += detection_tables(crs, crs_res, pls, subjects)
    md += fp_tables(benign, ben_res, pls, subjects)
    if fired:
        md += fired_table(fired, len(benign))
    if cost_rows:
        md += cost_table(cost_rows)
    text = "\n".join(md) + "\n"
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(run, "env.json"), "w") as f:
        json.dump(dict(env, cost=cost_rows), f, indent=1)
    print(text)
    if not a.out and not a.cost_only:  # a default run also refreshes results/latest/ (committed): the summary, env.json, FROM
        latest = os.path.join(HERE, "results", "latest")
        os.makedirs(latest, exist_ok=True)
        for name in ("summary.md", "env.json"):
            with open(os.path.join(run, name), "rb") as src, open(os.path.join(latest, name), "wb") as dst:
                dst.write(src.read())
        with open(os.path.join(latest, "FROM"), "w") as f:
            f.write(os.path.basename(run) + "\n")
    log("results in %s" % run)


if __name__ == "__main__":
    sys.exit(main())
