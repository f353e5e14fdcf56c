#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks what headless Chromium made of a ktune report.

  check_render.py DOM PNG MIN_CHARTS

DOM is `chromium --dump-dom` of the report (the document as the browser
parsed it), PNG its screenshot. Passes (exit 0) when the browser kept every
chart -- at least MIN_CHARTS <svg> elements, each with a drawn path (a
non-empty `d`), tick labels and two non-empty axis titles -- and when the
screenshot is not blank: enough non-white pixels, many colours, and the
report's series colours actually painted. Standard library only (the PNG
is decoded with zlib)."""
import html.parser
import struct
import sys
import zlib


class Charts(html.parser.HTMLParser):
    """Per top-level <svg>: its data paths (class series or whiskers with a
    non-empty d), markers, tick labels and axis titles."""

    def __init__(self):
        super().__init__()
        self.charts = []
        self.depth = 0
        self.group = None  # class of the enclosing <g> of texts
        self.in_text = False
        self.scripts = 0
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        for key in ("src", "href"):
            if key in a and not (a[key] or "").startswith("#"):
                self.external.append(f"{tag} {key}={a[key]}")
        if tag == "svg":
            self.depth += 1
            if self.depth == 1:
                self.charts.append({"data": 0, "marks": 0, "ticks": 0,
                                    "titles": []})
            return
        if not self.depth:
            return
        c = self.charts[-1]
        if (tag == "path" and a.get("class") in ("series", "whiskers")
                and (a.get("d") or "").strip()):
            c["data"] += 1
        elif tag == "circle":
            c["marks"] += 1
        elif tag == "g":
            self.group = a.get("class")
        elif tag == "text" and self.group == "tick-label":
            c["ticks"] += 1
        elif tag == "text" and self.group == "axis-title":
            c["titles"].append("")
            self.in_text = True

    def handle_endtag(self, tag):
        if tag == "svg":
            self.depth -= 1
        elif tag == "g":
            self.group = None
        elif tag == "text":
            self.in_text = False

    def handle_data(self, data):
        if self.depth and self.in_text:
            self.charts[-1]["titles"][-1] += data.strip()


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"{path}: expected 8-bit RGB(A), not interlaced")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            ul = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + left) & 255
            elif ft == 2:
                line[i] = (line[i] + up) & 255
            elif ft == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif ft == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pr = left if pa <= pb and pa <= pc else up if pb <= pc else ul
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def main():
    dom_path, png_path, min_charts = sys.argv[1], sys.argv[2], int(sys.argv[3])
    failures = []
    p = Charts()
    with open(dom_path, encoding="utf-8") as f:
        p.feed(f.read())
    if p.scripts:
        failures.append(f"{p.scripts} <script> element(s) in the report")
    if p.external:
        failures.append("references outside the document: " +
                        ", ".join(p.external[:5]))
    if len(p.charts) < min_charts:
        failures.append(f"{len(p.charts)} charts in the DOM, expected at "
                        f"least {min_charts}")
    for i, c in enumerate(p.charts):
        if c["data"] == 0:
            failures.append(f"chart {i + 1}: no data path drawn")
        if c["ticks"] < 2:
            failures.append(f"chart {i + 1}: {c['ticks']} tick labels")
        if len([t for t in c["titles"] if t]) < 2:
            failures.append(f"chart {i + 1}: axis titles {c['titles']}")
    w, h, rows = png_pixels(png_path)
    colours, ink = {}, 0
    for row in rows:
        for px in row:
            colours[px] = colours.get(px, 0) + 1
            if sum(px) < 3 * 235:
                ink += 1
    share = ink / (w * h)
    if share < 0.02:
        failures.append(f"screenshot {w}x{h} is blank: {share:.2%} ink")
    if len(colours) < 50:
        failures.append(f"screenshot has {len(colours)} colours")

    # Series colours (kt_plot_color) painted: each within a small distance.
    def painted(rgb):
        return sum(n for px, n in colours.items()
                   if sum(abs(a - b) for a, b in zip(px, rgb)) <= 24)
    for name, rgb in (("#0072B2", (0, 114, 178)), ("#D55E00", (213, 94, 0)),
                      ("#009E73", (0, 158, 115))):
        if painted(rgb) < 40:
            failures.append(f"series colour {name} is not in the screenshot")
    print(f"{len(p.charts)} charts; "
          f"data paths per chart {[c['data'] for c in p.charts]}; "
          f"markers {[c['marks'] for c in p.charts]}; "
          f"screenshot {w}x{h}, {share:.1%} ink, {len(colours)} colours")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
