#!/usr/bin/env python3
"""Time against T on a log-log plot, as SVG (no plotting library needed):
sympow measured on a GPU (a baseline JSON such as perf/h100-baseline.json),
the anchors measured there, and sympow-bench runs (--json) as predicted (and
measured, when the bench ran on a GPU) with the roofline floor.

usage: plot-performance.py --baseline perf/h100-baseline.json \
           --bench model.json [--bench more.json] --out docs/perf-h100.svg \
           [--case "p2d64 chunked data"] [--title ...]

docs/Performance.md shows the result; the command that made it is there.
"""

import argparse
import json
import math
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
          "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]


def series_from_args(args):
    series = []  # (label, [(T, ms)], dashed)
    with open(args.baseline) as f:
        base = json.load(f)
    measured = {}
    for row in base.get("rows", []):
        if row.get("B", 1) != 1 or row.get("T", 1) < 2:
            continue
        label = "sympow %s, measured" % row["formulation"]
        if args.case and row["case"] not in args.case:
            continue
        measured.setdefault(label, []).append((row["T"], row["kernel_ms_total"]))
    for label, points in sorted(measured.items()):
        series.append((label, sorted(points), False))
    for anchor in base.get("anchors", {}).get("rows", []):
        points = sorted((int(t), ms) for t, ms in anchor["ms"].items())
        series.append((anchor["name"] + ", measured", points, False))
    for path in args.bench:
        with open(path) as f:
            bench = json.load(f)
        where = "%s, %s" % (bench.get("gpu", "?"), bench.get("backend", "?"))
        predicted, floors, timed = {}, {}, {}
        for run in bench["runs"]:
            f_ = run["formulation"]
            layer = run["layer"]
            predicted.setdefault(f_, []).append((run["T"], layer["predicted_seconds"] * 1e3))
            floors.setdefault(f_, []).append((run["T"], layer["floor_seconds"] * 1e3))
            if "measured_seconds" in layer:
                timed.setdefault(f_, []).append((run["T"], layer["measured_seconds"] * 1e3))
        for f_, points in sorted(predicted.items()):
            series.append(("sympow %s, predicted (%s)" % (f_, where), sorted(points), True))
        for f_, points in sorted(timed.items()):
            series.append(("sympow %s, measured (%s)" % (f_, where), sorted(points), False))
        if "chunked" in floors:
            series.append(("roofline floor (chunked: FLOPs at peak)",
                           sorted(floors["chunked"]), True))
    return series


def svg(series, title):
    width, height = 820, 520
    left, right, top, bottom = 70, 330, 40, 60
    xs = [t for _, pts, _ in series for t, _ in pts]
    ys = [ms for _, pts, _ in series for _, ms in pts if ms > 0]
    if not xs or not ys:
        sys.exit("plot-performance: nothing to plot")
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if x0 == x1:
        x1 += 1
    if y0 == y1:
        y1 += 1
    pw, ph = width - left - right, height - top - bottom

    def px(t):
        return left + (math.log10(t) - x0) / (x1 - x0) * pw

    def py(ms):
        return top + (y1 - math.log10(ms)) / (y1 - y0) * ph

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">%s</text>' % (left, title)]
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (left, left + pw, y, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g ms</text>'
                   % (left - 6, y + 4, 10 ** e))
    for e in range(x0, x1 + 1):
        x = px(10 ** e)
        out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/>'
                   % (x, x, top, top + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, top + ph + 18, "{:,}".format(10 ** e)))
    out.append('<text x="%d" y="%d" text-anchor="middle">tokens T</text>'
               % (left + pw / 2, height - 14))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
               'stroke="black"/>' % (left, top, pw, ph))
    for i, (label, points, dashed) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        path = " ".join("%.1f,%.1f" % (px(t), py(ms)) for t, ms in points if ms > 0)
        out.append('<polyline points="%s" fill="none" stroke="%s" '
                   'stroke-width="2"%s/>' % (path, color,
                                              ' stroke-dasharray="6,4"' if dashed else ""))
        for t, ms in points:
            if ms > 0:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                           % (px(t), py(ms), color))
        ly = top + 10 + i * 20
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                   'stroke-width="2"%s/>' % (left + pw + 12, left + pw + 36, ly, ly,
                                             color,
                                             ' stroke-dasharray="6,4"' if dashed else ""))
        out.append('<text x="%d" y="%d">%s</text>'
                   % (left + pw + 42, ly + 4, label.replace("&", "&amp;")))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--bench", action="append", default=[])
    parser.add_argument("--case", action="append", default=[],
                        help="baseline cases to plot (default: all with B = 1)")
    parser.add_argument("--title", default="Forward time against T")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w") as f:
        f.write(svg(series_from_args(args), args.title))


if __name__ == "__main__":
    main()
