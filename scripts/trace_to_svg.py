#!/usr/bin/env python3
"""Draws a Chrome trace written by `plexa run --profile=trace.json` as an SVG
timeline, without a browser: one lane per thread (a replica runs on its own
thread), each step a box from its start to its end, nested steps (the body
of a while loop inside the loop's span) one row below their parent, boxes
coloured by kind (the ABI's PLX_ProfileEvent kind: fusion, dot,
convolution, while, onednn.convolution, ...), a time axis in microseconds.

    scripts/trace_to_svg.py trace.json trace.svg [--title TEXT]

Perfetto (ui.perfetto.dev) and chrome://tracing open the same JSON
interactively; this picture is for docs, reviews and machines without one.
Only the Python standard library is used.
"""
import argparse
import html
import json
import sys

PALETTE = ["#f9cb9c", "#b6d7a8", "#9fc5e8", "#d5a6bd", "#ffe599",
           "#a2c4c9", "#ea9999", "#b4a7d6", "#f6b26b", "#93c47d"]
ROW = 22          # height of one nesting row, px
LEFT = 150        # room for lane names, px
WIDTH = 1100      # drawing width, px


def load(path):
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit(f"{path}: no complete ('X') events to draw")
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            names[e.get("pid")] = e.get("args", {}).get("name", "")
    return spans, names


def nest(spans):
    """Row of each span within its lane: one more than the deepest span
    that contains it."""
    depth = {}
    open_spans = []
    for i in sorted(range(len(spans)),
                    key=lambda i: (spans[i]["ts"], -spans[i]["dur"])):
        s = spans[i]
        end = s["ts"] + s["dur"]
        open_spans = [j for j in open_spans
                      if spans[j]["ts"] + spans[j]["dur"] >= end - 1e-9]
        depth[i] = len(open_spans)
        open_spans.append(i)
    return depth


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("svg")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()
    spans, process_names = load(args.trace)
    t0 = min(s["ts"] for s in spans)
    t1 = max(s["ts"] + s["dur"] for s in spans)
    scale = WIDTH / max(t1 - t0, 1e-9)
    lanes = {}
    for s in spans:
        lanes.setdefault((s.get("pid"), s.get("tid")), []).append(s)
    kinds = sorted({s.get("cat", "") for s in spans})
    colour = {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(kinds)}

    out = []
    y = 40
    for (pid, tid), lane in sorted(lanes.items(), key=lambda kv: str(kv[0])):
        depth = nest(lane)
        rows = max(depth.values()) + 1
        replica = lane[0].get("args", {}).get("replica")
        label = f"thread {tid}" + (f" (replica {replica})"
                                   if replica is not None else "")
        out.append(f'<text x="8" y="{y + 15}" class="lane">'
                   f'{html.escape(label)}</text>')
        out.append(f'<line x1="{LEFT}" y1="{y - 3}" x2="{LEFT + WIDTH}" '
                   f'y2="{y - 3}" stroke="#dddddd"/>')
        for i, s in enumerate(lane):
            x = LEFT + (s["ts"] - t0) * scale
            w = max(s["dur"] * scale, 1.0)
            top = y + depth[i] * ROW
            name = s.get("name", "")
            tip = (f'{name} ({s.get("cat", "")}): {s["dur"]:.3f} us '
                   f'at {s["ts"] - t0:.3f} us')
            out.append(
                f'<g><title>{html.escape(tip)}</title>'
                f'<rect x="{x:.2f}" y="{top}" width="{w:.2f}" '
                f'height="{ROW - 4}" rx="2" fill="{colour[s.get("cat", "")]}" '
                f'stroke="#666666" stroke-width="0.5"/>')
            if w > 7 * len(name):
                out.append(f'<text x="{x + 3:.2f}" y="{top + 13}" '
                           f'class="box">{html.escape(name)}</text>')
            out.append("</g>")
        y += rows * ROW + 16

    # The time axis: ten ticks.
    axis_y = y
    out.append(f'<line x1="{LEFT}" y1="{axis_y}" x2="{LEFT + WIDTH}" '
               f'y2="{axis_y}" stroke="#333333"/>')
    for k in range(11):
        x = LEFT + WIDTH * k / 10
        t = (t1 - t0) * k / 10
        out.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" '
                   f'y2="{axis_y + 5}" stroke="#333333"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 18}" class="tick" '
                   f'text-anchor="middle">{t:.1f}</text>')
    out.append(f'<text x="{LEFT + WIDTH / 2}" y="{axis_y + 34}" class="tick" '
               f'text-anchor="middle">microseconds</text>')
    # The legend.
    lx, ly = LEFT, axis_y + 50
    for k in kinds:
        out.append(f'<rect x="{lx}" y="{ly}" width="14" height="12" '
                   f'fill="{colour[k]}" stroke="#666666" stroke-width="0.5"/>')
        out.append(f'<text x="{lx + 18}" y="{ly + 10}" class="tick">'
                   f'{html.escape(k)}</text>')
        lx += 30 + 7 * len(k)
        if lx > LEFT + WIDTH - 100:
            lx, ly = LEFT, ly + 18
    height = ly + 30
    title = args.title or " / ".join(n for n in process_names.values() if n)
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 20}" '
        f'height="{height}" font-family="Helvetica, Arial, sans-serif">',
        '<style>.lane{font-size:11px;fill:#333}.box{font-size:10px}'
        '.tick{font-size:10px;fill:#333}.title{font-size:14px}</style>',
        f'<rect width="100%" height="100%" fill="white"/>',
        f'<text x="8" y="22" class="title">{html.escape(title)} — '
        f'{len(spans)} steps</text>',
    ] + out + ["</svg>"]
    with open(args.svg, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
