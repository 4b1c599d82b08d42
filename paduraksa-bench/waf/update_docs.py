#!/usr/bin/python3
"""Copies the tables of results/latest/summary.md into docs/waf.md, between its
`<!-- waf-results:begin -->` and `<!-- waf-results:end -->` markers (headings one level down).
The prose around them is written by hand and must be re-read against the new numbers.

    paduraksa-bench/waf/update_docs.py [SUMMARY_MD]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "waf.md")
BEGIN, END = "<!-- waf-results:begin -->", "<!-- waf-results:end -->"


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "latest", "summary.md")
    with open(src, encoding="utf-8") as f:
        lines = f.read().splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("### "))
    head = [x for x in lines[:first] if x.strip() and not x.startswith("# ")]
    body = lines[first:]
    date = lines[0][len("# WAF bench "):].strip() if lines and lines[0].startswith("# WAF bench ") else "?"
    block = [BEGIN, "Run of %s (`%s`):" % (date, os.path.relpath(src, os.path.join(HERE, "..", ".."))), ""]
    block += ["- " + x.rstrip() for x in head] + [""]
    block += [("#" + x) if x.startswith("### ") else x for x in body]
    block.append(END)
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    i, j = doc.index(BEGIN), doc.index(END) + len(END)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(doc[:i] + "\n".join(block).rstrip() + doc[j:])
    print("docs/waf.md: tables from %s" % src)


if __name__ == "__main__":
    main()
