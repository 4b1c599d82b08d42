#!/usr/bin/python3
"""Before and after in the same hour: two Paduraksa launchers measured alternately by run.sh.

    ab.py BASE_LAUNCHER NEW_LAUNCHER [--pairs 2] [run.sh options, e.g. --protos h1,h2c --scenarios proxy]

Each pair is one run.sh run with BASE, then one with NEW (the order of a pair alternates: base first
in odd pairs, new first in even ones), with `--subjects paduraksa` unless the options name subjects.
Prints, per cell (scenario, shape, protocol), every run's median CPU µs per request and its ratio to
the upstream, then new/base per pair: on a shared machine the runs of one code move by several per
cent between pairs, so a change is only as clear as its direction in every pair. A launcher is a
bin/paduraksa of another checkout (build an older commit with `git worktree add DIR COMMIT` and
`./mvnw -q -DskipTests package` there). Standard library only; the run directories stay in results/.
"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(launcher, options):
    argv = [os.path.join(HERE, "run.sh"), "--paduraksa", launcher] + options
    p = subprocess.run(argv, capture_output=True, text=True)
    m = re.search(r"summary: (\S+)summary\.md", p.stdout + p.stderr)
    if p.returncode != 0 or not m:
        raise SystemExit("ab.py: run.sh failed (%d):\n%s" % (p.returncode, (p.stdout + p.stderr)[-2000:]))
    return m.group(1)


def medians(run_dir):
    cells = {}
    with open(os.path.join(run_dir, "runs.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("subject") != "paduraksa" or r.get("subject_us_per_req") is None:
                continue
            cells.setdefault((r["scenario"], r["shape"], r["proto"]), []).append(r)
    out = {}
    for cell, rs in cells.items():
        ratios = [r["ratio_to_upstream"] for r in rs if r.get("ratio_to_upstream") is not None]
        out[cell] = (statistics.median(r["subject_us_per_req"] for r in rs),
                     statistics.median(ratios) if ratios else None)
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0].startswith("-") or args[1].startswith("-"):
        raise SystemExit(__doc__)
    base, new, options = os.path.abspath(args[0]), os.path.abspath(args[1]), args[2:]
    pairs = 2
    if "--pairs" in options:
        i = options.index("--pairs")
        pairs = int(options[i + 1])
        del options[i:i + 2]
    if "--subjects" not in options:
        options += ["--subjects", "paduraksa"]
    results = []  # (pair, which, medians, dir)
    for pair in range(1, pairs + 1):
        order = [("base", base), ("new", new)] if pair % 2 == 1 else [("new", new), ("base", base)]
        for which, launcher in order:
            d = run(launcher, options)
            results.append((pair, which, medians(d), d))
            print("pair %d %-4s %s" % (pair, which, d), flush=True)
    cells = sorted({c for _, _, m, _ in results for c in m})
    print()
    print("| cell | " + " | ".join("%s %d" % (w, p) for p, w, _, _ in results) + " | new/base per pair |")
    print("|---|" + "---|" * (len(results) + 1))
    for cell in cells:
        row = []
        for _, _, m, _ in results:
            us, ratio = m.get(cell, (None, None))
            row.append("-" if us is None else "%.2f" % us + ("" if ratio is None else " (x%.2f)" % ratio))
        per_pair = []
        for pair in range(1, pairs + 1):
            b = [m[cell][0] for p, w, m, _ in results if p == pair and w == "base" and cell in m]
            n = [m[cell][0] for p, w, m, _ in results if p == pair and w == "new" and cell in m]
            per_pair.append("%.3f" % (n[0] / b[0]) if b and n else "-")
        print("| %s %s %s | %s | %s |" % (cell[0], cell[1], cell[2], " | ".join(row), " / ".join(per_pair)))


if __name__ == "__main__":
    main()
