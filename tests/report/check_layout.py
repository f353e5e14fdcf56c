#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the layout of every chart in ktune reports.

  check_layout.py PLOT_H FILE...

FILE is a report (.html) or a chart (.svg) as ktune writes them. For every
<svg> chart, every text label's box is estimated the way the renderer
estimates it (report/plot.h: characters x KT_PLOT_EM_PER_CHAR x font size
wide, KT_PLOT_ASCENT x size above the baseline, KT_PLOT_DESCENT x size
below; the constants are read from PLOT_H so the two cannot drift apart),
turned with its transform, and must
  - lie inside the chart's viewBox;
  - lie inside the plot area (the chart's kt-c clip rectangle) when it is a
    label drawn in the plot (class note or line-label);
  - not overlap a plotted mark: a marker (circle), a data or reference line
    (path of class series, ref or whiskers, as wide as its stroke) or a bar
    (rect), each as far as its clip path lets it show; the legend's samples
    and translucent regions behind the data (rect class region) are not
    marks;
  - not overlap another label (turned tick labels are left out of this
    one: their boxes are not upright).
Prints one line per finding and exits 1 when there is any. Standard library
only."""
import html.parser
import math
import re
import sys


def constants(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for name in ("KT_PLOT_EM_PER_CHAR", "KT_PLOT_ASCENT", "KT_PLOT_DESCENT"):
        m = re.search(r"#define\s+" + name + r"\s+([0-9.]+)", text)
        if not m:
            raise SystemExit(f"{path}: no #define {name}")
        out[name] = float(m.group(1))
    return out


def num(v, default=0.0):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


class Chart:
    def __init__(self, where, attrs):
        self.where = where
        vb = [num(x) for x in (attrs.get("viewbox") or "0 0 0 0").split()]
        self.box = (vb[0], vb[1], vb[0] + vb[2], vb[1] + vb[3])
        self.clips = {}
        self.texts = []  # dicts: text, x, y, anchor, size, transform, cls
        self.circles = []  # (cx, cy, r, clip)
        self.segments = []  # (x0, y0, x1, y1, half width, clip, what)
        self.rects = []  # (x0, y0, x1, y1, clip)


def path_segments(d):
    """The straight segments of a path of M/L/H/V/h/v/l/m commands."""
    segs = []
    x = y = 0.0
    for cmd, args in re.findall(r"([MLHVmlhvZz])([^MLHVmlhvZz]*)", d or ""):
        vals = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?[0-9]+)?",
                                            args)]
        if cmd in "Mm":
            pairs = list(zip(vals[0::2], vals[1::2]))
            for i, (a, b) in enumerate(pairs):
                nx, ny = (x + a, y + b) if cmd == "m" else (a, b)
                if i:
                    segs.append((x, y, nx, ny))
                x, y = nx, ny
        elif cmd in "Ll":
            for a, b in zip(vals[0::2], vals[1::2]):
                nx, ny = (x + a, y + b) if cmd == "l" else (a, b)
                segs.append((x, y, nx, ny))
                x, y = nx, ny
        elif cmd in "Hh":
            for a in vals:
                nx = x + a if cmd == "h" else a
                segs.append((x, y, nx, y))
                x = nx
        elif cmd in "Vv":
            for a in vals:
                ny = y + a if cmd == "v" else a
                segs.append((x, y, x, ny))
                y = ny
    return segs


class Reader(html.parser.HTMLParser):
    def __init__(self, name):
        super().__init__(convert_charrefs=True)
        self.name = name
        self.charts = []
        self.stack = []  # (tag, attrs) inside the chart
        self.text = None
        self.clip_id = None

    def inherited(self, key):
        for _, a in reversed(self.stack):
            if key in a:
                return a[key]
        return None

    def in_class(self, cls):
        return any(a.get("class") == cls for _, a in self.stack)

    def clip(self, a):
        ref = a.get("clip-path") or self.inherited("clip-path")
        m = re.match(r"url\(#(.+)\)", ref or "")
        return m.group(1) if m else None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and not self.stack:
            where = f"{self.name}: chart {len(self.charts) + 1}"
            self.charts.append(Chart(where, a))
        if not self.stack and tag != "svg":
            return
        self.stack.append((tag, a))
        c = self.charts[-1]
        if tag == "clippath":
            self.clip_id = a.get("id")
        elif tag == "rect" and self.clip_id:
            x, y = num(a.get("x")), num(a.get("y"))
            c.clips[self.clip_id] = (x, y, x + num(a.get("width")),
                                     y + num(a.get("height")))
        elif self.in_class("legend") or self.in_defs():
            pass
        elif tag == "circle":
            c.circles.append((num(a.get("cx")), num(a.get("cy")),
                              num(a.get("r")), self.clip(a)))
        elif tag == "path" and a.get("class") in ("series", "ref",
                                                  "whiskers"):
            half = num(a.get("stroke-width"), 1.0) / 2
            for s in path_segments(a.get("d")):
                c.segments.append(s + (half, self.clip(a), a.get("class")))
        elif tag == "rect" and a.get("class") != "region":
            x, y = num(a.get("x")), num(a.get("y"))
            c.rects.append((x, y, x + num(a.get("width")),
                            y + num(a.get("height")), self.clip(a)))
        elif tag == "text":
            self.text = {
                "text": "", "x": num(a.get("x")), "y": num(a.get("y")),
                "anchor": a.get("text-anchor") or
                self.inherited("text-anchor") or "start",
                "size": num(self.inherited("font-size"), 16.0),
                "transform": a.get("transform") or "",
                "cls": a.get("class") or ""}

    def in_defs(self):
        return any(t in ("defs", "clippath") for t, _ in self.stack)

    def handle_endtag(self, tag):
        if not self.stack:
            return
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "text" and self.text is not None:
            self.charts[-1].texts.append(self.text)
            self.text = None
        elif tag == "clippath":
            self.clip_id = None

    def handle_data(self, data):
        if self.text is not None and self.stack[-1][0] == "text":
            self.text["text"] += data


def text_box(t, k):
    n = len(t["text"])
    w = n * k["KT_PLOT_EM_PER_CHAR"] * t["size"]
    x0 = {"start": t["x"], "middle": t["x"] - w / 2,
          "end": t["x"] - w}.get(t["anchor"], t["x"])
    box = (x0, t["y"] - k["KT_PLOT_ASCENT"] * t["size"], x0 + w,
           t["y"] + k["KT_PLOT_DESCENT"] * t["size"])
    m = re.match(r"rotate\(\s*(-?[0-9.]+)[ ,]+(-?[0-9.]+)[ ,]+(-?[0-9.]+)",
                 t["transform"])
    if not m:
        return box, False
    a, cx, cy = (float(v) for v in m.groups())
    ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
    xs, ys = [], []
    for px, py in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]),
                   (box[2], box[3])):
        dx, dy = px - cx, py - cy
        xs.append(cx + dx * ca - dy * sa)
        ys.append(cy + dx * sa + dy * ca)
    return (min(xs), min(ys), max(xs), max(ys)), a % 90 != 0


def overlap(a, b, pad=0.0):
    return (a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad
            and b[1] < a[3] + pad)


def intersect(a, b):
    r = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return r if r[0] < r[2] and r[1] < r[3] else None


def segment_hits(seg, box):
    """Whether segment (x0, y0, x1, y1) passes through box (Liang-Barsky)."""
    x0, y0, x1, y1 = seg
    dx, dy = x1 - x0, y1 - y0
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]),
                 (dy, box[3] - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


def check(chart, k):
    found = []
    vb = chart.box
    area = next((r for i, r in chart.clips.items() if i.startswith("kt-c")),
                None)

    def visible(region, clip):
        return intersect(region, chart.clips[clip]) if clip in \
            chart.clips else region

    boxes = []
    for t in chart.texts:
        if not t["text"].strip():
            continue
        box, turned = text_box(t, k)
        label = f"{chart.where}: text '{t['text']}'"
        if not (box[0] >= vb[0] - 0.5 and box[1] >= vb[1] - 0.5
                and box[2] <= vb[2] + 0.5 and box[3] <= vb[3] + 0.5):
            found.append(f"{label} at ({box[0]:.1f}, {box[1]:.1f})-"
                         f"({box[2]:.1f}, {box[3]:.1f}) leaves the viewBox "
                         f"{vb}")
        if area and t["cls"] in ("note", "line-label") and not (
                box[0] >= area[0] - 0.5 and box[1] >= area[1] - 0.5
                and box[2] <= area[2] + 0.5 and box[3] <= area[3] + 0.5):
            found.append(f"{label} leaves the plot area {area}")
        for cx, cy, r, clip in chart.circles:
            if not visible((cx - r, cy - r, cx + r, cy + r), clip):
                continue
            nx = min(max(cx, box[0]), box[2])
            ny = min(max(cy, box[1]), box[3])
            if (nx - cx) ** 2 + (ny - cy) ** 2 < r * r:
                found.append(f"{label} lies over a marker at "
                             f"({cx:.1f}, {cy:.1f})")
                break
        for x0, y0, x1, y1, half, clip, what in chart.segments:
            region = (box[0] - half, box[1] - half, box[2] + half,
                      box[3] + half)
            region = visible(region, clip)
            if region and segment_hits((x0, y0, x1, y1), region):
                found.append(f"{label} lies over a line ({what}) from "
                             f"({x0:.1f}, {y0:.1f}) to ({x1:.1f}, {y1:.1f})")
                break
        for r in chart.rects:
            shown = visible(r[:4], r[4])
            if shown and intersect(shown, box):
                found.append(f"{label} lies over a bar at ({r[0]:.1f}, "
                             f"{r[1]:.1f})")
                break
        if not turned:
            for other, obox in boxes:
                if intersect(box, obox):
                    found.append(f"{label} overlaps text '{other}'")
                    break
            boxes.append((t["text"], box))
    return found


def main():
    k = constants(sys.argv[1])
    findings, charts, texts = [], 0, 0
    for name in sys.argv[2:]:
        r = Reader(name)
        r.feed(open(name, encoding="utf-8").read())
        if not r.charts:
            findings.append(f"{name}: no chart")
        for c in r.charts:
            charts += 1
            texts += len(c.texts)
            findings += check(c, k)
    for f in findings:
        print("FAIL:", f)
    print(f"{charts} charts, {texts} labels, {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
