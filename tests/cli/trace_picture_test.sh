#!/usr/bin/env bash
# plexa run --profile on the CPU plugin, drawn by scripts/trace_to_svg.py:
# the SVG parses and has a box for every step of the trace.
#   trace_picture_test.sh PLEXA SOURCE_DIR
set -euo pipefail
plexa=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/plexa-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$plexa" run "$src/examples/rnn_loop.hlo" --backend=cpu --replicas=2 \
  --profile="$work/trace.json" >/dev/null 2>"$work/err"
/usr/bin/python3 "$src/scripts/trace_to_svg.py" "$work/trace.json" "$work/trace.svg"
/usr/bin/python3 - "$work/trace.json" "$work/trace.svg" <<'PY'
import json, sys, xml.etree.ElementTree as ET
trace, svg = sys.argv[1], sys.argv[2]
steps = [e for e in json.load(open(trace))["traceEvents"] if e.get("ph") == "X"]
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
titles = [t.text for t in root.iter(ns + "title")]
boxes = [r for r in root.iter(ns + "rect") if r.get("rx") == "2"]
# Two replicas of a four-step loop: each replica's loop, four dots and
# four tanhs at least.
names = [s["name"] for s in steps]
for name, least in (("loop", 2), ("d", 8), ("t", 8)):
    if names.count(name) < least:
        sys.exit(f"{trace}: {names.count(name)} '{name}' steps, want >= {least}")
if len(boxes) != len(steps) or len(titles) != len(steps):
    sys.exit(f"{svg}: {len(boxes)} boxes, {len(titles)} titles for {len(steps)} steps")
for s in steps:
    if not any(t.startswith(s["name"] + " (") for t in titles):
        sys.exit(f"{svg}: no box for {s['name']}")
lanes = {(s["pid"], s["tid"]) for s in steps}
if len(lanes) != 2:
    sys.exit(f"{trace}: {len(lanes)} threads, want one per replica")
print(f"ok: {len(steps)} steps on {len(lanes)} threads drawn")
PY
