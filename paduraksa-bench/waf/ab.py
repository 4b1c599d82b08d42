#!/usr/bin/python3
"""The WAF bench's cost rows for several Paduraksa instances in one run, windows alternating: the way to
compare two builds (a commit and the one before it) on a machine whose speed moves between runs.

    paduraksa-bench/waf/ab.py [--rounds 3] [--duration 8] NAME=LAUNCHER:PL [NAME=LAUNCHER:PL ...]

PL is a paranoia level, or - for no policy (the gate alone). LAUNCHER is a tree's bin/paduraksa (built
with `./mvnw -o -q -pl paduraksa-core,paduraksa-server -am package -DskipTests` in that tree). Example,
the commit before in a worktree next to this one:

    git worktree add /tmp/before HEAD~1 && (cd /tmp/before && ./mvnw -o -q -pl paduraksa-core,paduraksa-server -am package -DskipTests)
    paduraksa-bench/waf/ab.py plainB=/tmp/before/bin/paduraksa:- plainN=bin/paduraksa:- \\
        pl1B=/tmp/before/bin/paduraksa:1 pl1N=bin/paduraksa:1

Same requests (wafbench.cost_requests), wrk command, pinning (subjects on CPU 1, wrk on CPU 0) and CPU
accounting (wafbench.measure_cost) as run.sh's cost table; each instance gets 20 s of JIT warm-up
first. Prints each instance's windows and median in µs of CPU per request. Stops what it started by PID.
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import conf  # noqa: E402
import wafbench  # noqa: E402
from harness import Procs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8, help="seconds per window")
    ap.add_argument("--port-base", type=int, default=19300)
    ap.add_argument("subjects", nargs="+", help="NAME=LAUNCHER:PL (PL: 1-4, or - for no policy)")
    a = ap.parse_args()
    run = tempfile.mkdtemp(prefix="waf-ab-")
    procs = Procs(os.path.join(run, "pids"))
    opts = argparse.Namespace(warmup=3, duration=a.duration, conns=16)
    reqfile = wafbench.cost_requests(run)
    subs = []
    try:
        for i, spec in enumerate(a.subjects):
            name, rest = spec.split("=", 1)
            launcher, pl = rest.rsplit(":", 1)
            port = a.port_base + 2 * i
            cfg = conf.paduraksa_yaml(run, name, port, port + 1, None if pl == "-" else int(pl))
            p = wafbench.start_paduraksa(procs, run, os.path.abspath(launcher), name, cfg, port)
            if p is None:
                return 1
            subs.append((name, p, port))
        for name, p, port in subs:
            wafbench.wrk(port, reqfile, 20, opts.conns)
        res = {}
        for r in range(a.rounds):  # subjects in turn, reversed on odd rounds, so drift is shared
            for name, p, port in (subs if r % 2 == 0 else list(reversed(subs))):
                res.setdefault(name, []).append(wafbench.measure_cost(name, p, port, reqfile, opts)["cpu_us_per_req"])
        med = {n: sorted(v)[len(v) // 2] for n, v in res.items()}
        for n, v in res.items():
            print("%-12s median %6.2f us CPU/request  windows [%s]" % (n, med[n], " ".join("%.2f" % x for x in v)))
        print("MEDIANS " + json.dumps(med))
    finally:
        procs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
