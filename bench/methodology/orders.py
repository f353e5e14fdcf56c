#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The methodology's scores side by side over the orderings of the value
lists (run.py --order): one table of each strategy's mean P on the
evaluation set per ordering, one of the default's P per file and ordering,
and the 10%-of-space medians per file and ordering where they were run.

  python3 bench/methodology/orders.py PREFIX [ORDER ...]
      [--default NAME] [--with PREFIX2 ...] [--without TEXT]

reads PREFIX-ORDER.json (run.py --out PREFIX-ORDER) for each ORDER
(default: original reversed shuffle1 shuffle2 shuffle3) and prints
Markdown on stdout. --default names the row issue 52's lines are about
(default ktune:auto); --with adds the Kernel Tuner rows (kt:*) of
PREFIX2-ORDER.json, scored in another run on the same files and
ordering (given more than once, each adds its rows; a later one's row
of the same name wins); --without leaves out every Kernel Tuner row
whose name contains TEXT (e.g. "+x0=": Kernel Tuner as shipped, without
a start)."""
import argparse
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


def eval_p(d, n):
    v = d.get("aggregate", {}).get("evaluation", {}).get(n)
    return v if isinstance(v, (int, float)) else \
        (v or {}).get("P") if isinstance(v, dict) else None


def verdict_table(docs, orders, default="ktune:auto"):
    """Issue 52's lines per ordering: the default's mean P on the
    evaluation set, ktune's best other strategy, Kernel Tuner's best, and
    whether the default is >= 0.60, the highest of ktune's and >= 0.25
    above Kernel Tuner's best (blank where a side was not scored)."""
    md = ["| ordering | default P | ktune's best other | Kernel Tuner's "
          "best | default - KT best | >= 0.60 | highest of ktune's "
          "| >= 0.25 above KT |", "|---|---:|---|---|---:|---|---|---|"]
    for o in orders:
        d = docs[o]
        names = d.get("aggregate", {}).get("evaluation", {})
        p = eval_p(d, default)
        kn = [(eval_p(d, n), n) for n in names
              if n.startswith("ktune:") and n != default
              and eval_p(d, n) is not None]
        kt = [(eval_p(d, n), n) for n in names
              if n.startswith("kt:") and eval_p(d, n) is not None]
        bn, bt = max(kn, default=None), max(kt, default=None)
        gap = p - bt[0] if p is not None and bt else None
        md.append(
            f"| {o} | {fmt(p)} | "
            + (f"{bn[1]} {bn[0]:.3f}" if bn else "") + " | "
            + (f"{bt[1]} {bt[0]:.3f}" if bt else "") + f" | {fmt(gap)} | "
            + ("" if p is None else "yes" if p >= 0.60 else "**no**")
            + " | " + ("" if p is None or not bn else
                       "yes" if p > bn[0] else "**no**")
            + " | " + ("" if gap is None else
                       "yes" if gap >= 0.25 else "**no**") + " |")
    return md


def add_kt_rows(docs, other):
    """Kernel Tuner's rows (kt:*) of OTHER's documents added to DOCS, per
    ordering: aggregate and per-file P."""
    for o, d in docs.items():
        src = other.get(o)
        if not src:
            continue
        agg = d.setdefault("aggregate", {}).setdefault("evaluation", {})
        for n, v in src.get("aggregate", {}).get("evaluation", {}).items():
            if n.startswith("kt:"):
                agg[n] = v
        for f, rows in src.get("files", {}).items():
            for n, v in rows.items():
                if n.startswith("kt:"):
                    d.setdefault("files", {}).setdefault(f, {})[n] = v


def parse_args(args):
    """The command line: prefix, orders, default, with (a list of
    prefixes) and without (a list of texts)."""
    ap = argparse.ArgumentParser(prog="orders.py", usage=__doc__)
    ap.add_argument("prefix")
    ap.add_argument("orders", nargs="*")
    ap.add_argument("--default", default="ktune:auto")
    ap.add_argument("--with", dest="others", action="append", default=[])
    ap.add_argument("--without", action="append", default=[])
    a = ap.parse_args(args)
    a.orders = a.orders or ORDERS
    return a


def drop_kt_rows(docs, texts):
    """Kernel Tuner's rows whose name contains one of TEXTS removed from
    DOCS (aggregate and per file)."""
    def keep(n):
        return not (n.startswith("kt:") and any(t in n for t in texts))
    for d in docs.values():
        agg = d.get("aggregate", {}).get("evaluation", {})
        for n in [n for n in agg if not keep(n)]:
            del agg[n]
        for rows in d.get("files", {}).values():
            for n in [n for n in rows if not keep(n)]:
                del rows[n]


def main():
    a = parse_args(sys.argv[1:])
    prefix, orders, default = a.prefix, a.orders, a.default
    docs = load(prefix, orders)
    orders = [o for o in orders if o in docs]
    if not orders:
        sys.exit(f"orders.py: no {prefix}-ORDER.json")
    for other in a.others:
        add_kt_rows(docs, load(other, orders))
    if a.without:
        drop_kt_rows(docs, a.without)
    md = ["### Evaluation set: mean P per ordering", ""] + \
        mean_p_table(docs, orders) + \
        ["", "### Issue 52's lines per ordering", ""] + \
        verdict_table(docs, orders, default) + \
        ["", f"### The default ({default}): P per file and ordering", ""] + \
        per_file_table(docs, orders, default)
    tenth = tenth_table(docs, orders)
    if tenth:
        md += ["", "### At 10% of the space: best over the optimum, "
               "median over the seeds", ""] + tenth
    print("\n".join(md))


if __name__ == "__main__":
    main()
