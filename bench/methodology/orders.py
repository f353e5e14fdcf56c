#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The methodology's scores side by side over the orderings of the value
lists (run.py --order): one table of each strategy's mean P on the
evaluation set per ordering, one of the default's P per file and ordering,
and the 10%-of-space medians per file and ordering where they were run.

  python3 bench/methodology/orders.py PREFIX [ORDER ...]

reads PREFIX-ORDER.json (run.py --out PREFIX-ORDER) for each ORDER
(default: original reversed shuffle1 shuffle2 shuffle3) and prints
Markdown on stdout."""
import json
import sys
from pathlib import Path

ORDERS = ["original", "reversed", "shuffle1", "shuffle2", "shuffle3"]


def load(prefix, orders):
    out = {}
    for o in orders:
        p = Path(f"{prefix}-{o}.json")
        if p.exists():
            out[o] = json.loads(p.read_text())
    return out


def fmt(x):
    return "" if x is None else f"{x:.3f}"


def mean_p_table(docs, orders):
    names = sorted({n for d in docs.values()
                    for n in d["aggregate"].get("evaluation", {})})
    md = ["| strategy | " + " | ".join(orders) + " |",
          "|---|" + "---:|" * len(orders)]
    for n in names:
        row = []
        for o in orders:
            agg = docs.get(o, {}).get("aggregate", {}).get("evaluation", {})
            v = agg.get(n)
            row.append(fmt(v if isinstance(v, (int, float)) else
                           (v or {}).get("P") if isinstance(v, dict)
                           else None))
        md.append(f"| {n} | " + " | ".join(row) + " |")
    return md


def per_file_table(docs, orders, strategy):
    files = sorted({f for d in docs.values() for f in d["files"]})
    md = ["| file | " + " | ".join(orders) + " |",
          "|---|" + "---:|" * len(orders)]
    for f in files:
        row = [fmt(docs.get(o, {}).get("files", {}).get(f, {})
                   .get(strategy, {}).get("P")) for o in orders]
        md.append(f"| {f} | " + " | ".join(row) + " |")
    return md


def tenth_table(docs, orders):
    keys = sorted({k for d in docs.values() for k in d.get("at_tenth", {})})
    if not keys:
        return []
    md = ["| file, strategy | " + " | ".join(orders) + " |",
          "|---|" + "---:|" * len(orders)]
    for k in keys:
        row = []
        for o in orders:
            v = docs.get(o, {}).get("at_tenth", {}).get(k)
            row.append("" if not v else
                       f"{v['median']:.4f} (worst {v['worst']:.4f}, "
                       f"{v['seeds']} seeds)")
        md.append(f"| {k.replace('|', ', ')} | " + " | ".join(row) + " |")
    return md


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    prefix, orders = sys.argv[1], sys.argv[2:] or ORDERS
    docs = load(prefix, orders)
    orders = [o for o in orders if o in docs]
    if not orders:
        sys.exit(f"orders.py: no {prefix}-ORDER.json")
    md = ["### Evaluation set: mean P per ordering", ""] + \
        mean_p_table(docs, orders) + \
        ["", "### The default (ktune:auto): P per file and ordering", ""] + \
        per_file_table(docs, orders, "ktune:auto")
    tenth = tenth_table(docs, orders)
    if tenth:
        md += ["", "### At 10% of the space: best over the optimum, "
               "median over the seeds", ""] + tenth
    print("\n".join(md))


if __name__ == "__main__":
    main()
