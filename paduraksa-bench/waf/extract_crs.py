#!/usr/bin/python3
"""Extracts CRS's own regression tests into data/crs-3.3.4-tests.jsonl (committed).

Run once, by hand, against a local git directory of coreruleset/coreruleset (not at bench time:
the bench reads only the committed JSON lines and needs no network):

    extract_crs.py GIT_DIR [REF]      # REF defaults to v3.3.4, the CRS that Debian 12 ships

Needs PyYAML (Debian: python3-yaml) for this step only. Every test stage becomes one line:
  {"id": "942100-1", "rule": 942100, "group": 942, "pl": 1, "expect": true,
   "method": "POST", "uri": "/", "version": "HTTP/1.0", "headers": [["Host", "localhost"], ...],
   "body": "var=1234 OR 1=1", "raw": null, "where": "body"}
expect: true when the test expects the rule to log (log_contains), false when it expects it not to
(no_log_contains: CRS's own negative tests). pl: the rule's tag 'paranoia-level/N' in
rules/REQUEST-9xx-*.conf at the same ref. where: which part of the request carries what differs from
a plain request (uri, headers, body, raw), a rough guide for readers of the results.
"""
import json
import re
import subprocess
import sys

import yaml

GROUPS = (913, 920, 921, 930, 932, 933, 941, 942, 944)


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir] + list(args), check=True,
                          capture_output=True).stdout


def rule_levels(gitdir, ref):
    levels = {}
    names = git(gitdir, "ls-tree", "--name-only", ref, "rules/").decode().split()
    for name in names:
        if not re.match(r"rules/REQUEST-9\d\d-.*\.conf$", name):
            continue
        text = git(gitdir, "show", "%s:%s" % (ref, name)).decode("utf-8", "replace")
        # one rule (and its chained rules) per block starting with SecRule/SecAction at column 0
        for block in re.split(r"\n(?=Sec(?:Rule|Action)\b)", text):
            m = re.search(r"\bid:(\d+)", block)
            if not m:
                continue
            pl = re.search(r"tag:'paranoia-level/(\d)'", block)
            if pl:
                levels[int(m.group(1))] = int(pl.group(1))
    return levels


def headers_of(inp):
    h = inp.get("headers") or {}
    return [[str(k), str(v)] for k, v in h.items()]


def where(inp):
    if inp.get("raw_request") or inp.get("encoded_request"):
        return "raw"
    if inp.get("data"):
        return "body"
    hdrs = {k.lower() for k, _ in headers_of(inp)}
    uri = str(inp.get("uri", "/"))
    if uri not in ("/", "") and uri != "/index.html":
        return "uri"
    if hdrs - {"host", "user-agent", "accept", "content-type", "content-length", "connection"}:
        return "headers"
    return "headers"


def main():
    gitdir = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) > 2 else "v3.3.4"
    commit = git(gitdir, "rev-parse", ref + "^{commit}").decode().strip()
    levels = rule_levels(gitdir, ref)
    files = git(gitdir, "ls-tree", "-r", "--name-only", ref, "tests/regression/tests/").decode().split()
    out = []
    for f in sorted(files):
        m = re.search(r"/REQUEST-(\d\d\d)-[^/]+/(\d+)\.yaml$", f)
        if not m or int(m.group(1)) not in GROUPS:
            continue
        group, rule = int(m.group(1)), int(m.group(2))
        doc = yaml.safe_load(git(gitdir, "show", "%s:%s" % (ref, f)))
        for t in doc.get("tests") or []:
            stages = t.get("stages") or []
            for si, s in enumerate(stages):
                st = s.get("stage", s)
                inp, outp = st.get("input") or {}, st.get("output") or {}
                if "log_contains" in outp:
                    expect = True
                elif "no_log_contains" in outp:
                    expect = False
                else:
                    continue  # status-only expectations (e.g. a 400 from the web server): skipped
                if outp.get("expect_error"):
                    continue
                raw = inp.get("raw_request")
                if raw is None and inp.get("encoded_request"):
                    import base64
                    raw = base64.b64decode(inp["encoded_request"]).decode("latin-1")
                data = inp.get("data")
                if isinstance(data, list):
                    data = "\r\n".join(str(x) for x in data)
                out.append({
                    "id": str(t.get("test_title")) + ("" if len(stages) == 1 else "/%d" % si),
                    "rule": rule, "group": group, "pl": levels.get(rule), "expect": expect,
                    "method": str(inp.get("method", "GET")), "uri": str(inp.get("uri", "/")),
                    "version": str(inp.get("version", "HTTP/1.1")), "headers": headers_of(inp),
                    "body": None if data is None else str(data), "raw": raw,
                    "where": where(inp),
                })
    path = "data/crs-%s-tests.jsonl" % ref.lstrip("v")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"_origin": {"repository": "coreruleset/coreruleset", "ref": ref,
                                        "commit": commit, "paths": "tests/regression/tests/REQUEST-9xx-*/*.yaml, rules/REQUEST-9xx-*.conf",
                                        "licence": "Apache-2.0", "groups": list(GROUPS)}}) + "\n")
        for r in out:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("%s: %d stages (%d expected to trigger) from %s %s" % (path, len(out), sum(r["expect"] for r in out), ref, commit))


if __name__ == "__main__":
    main()
