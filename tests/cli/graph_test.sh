#!/usr/bin/env bash
# plexa graph and plexa opt --pictures: pictures drawn by Graphviz, read
# back as XML, name every instruction of the module drawn.
#   graph_test.sh PLEXA SOURCE_DIR
set -euo pipefail
plexa=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/plexa-graph.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check_svg SVG HLO: the SVG parses and its texts hold every instruction
# name of HLO (a module printed by plexa, one instruction per line).
check_svg() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import re, sys, xml.etree.ElementTree as ET
svg, hlo = sys.argv[1], sys.argv[2]
tree = ET.parse(svg)  # raises on malformed XML
ns = "{http://www.w3.org/2000/svg}"
if tree.getroot().tag != ns + "svg":
    sys.exit(f"{svg}: the root element is {tree.getroot().tag}, not svg")
texts = {t.text.strip() for t in tree.iter(ns + "text") if t.text}
# Computations applied by reduce, sort, ... (to_apply=) are named in their
# caller's label, not drawn; every other computation's instructions are.
text = open(hlo).read()
applied = set(re.findall(r"to_apply=%?([\w.\-]+)", text))
names, current = [], None
for line in text.splitlines():
    header = re.match(r"^(?:ENTRY\s+)?%?([\w.\-]+).*\{\s*$", line)
    if header and not line.startswith(" "):
        current = header.group(1)
        continue
    m = re.match(r"^\s+(?:ROOT\s+)?%?([\w.\-]+)\s*=", line)
    if m and current not in applied:
        names.append(m.group(1))
for c in applied:
    if f"to_apply={c}" not in texts:
        sys.exit(f"{svg}: no label names to_apply={c}")
missing = [n for n in names if n not in texts]
if not names:
    sys.exit(f"{hlo}: no instructions found")
if missing:
    sys.exit(f"{svg}: instructions not drawn: {missing}")
print(f"{svg}: {len(names)} instructions, all drawn")
PY
}

echo "== plexa graph as read, after the pipeline with fusion, after one pass"
for prog in examples/mlp.hlo examples/while_loop.hlo examples/conv_block.hlo; do
  base=$(basename "$prog" .hlo)
  "$plexa" graph "$src/$prog" -o "$work/$base.svg"
  "$plexa" fmt "$src/$prog" >"$work/$base.hlo"
  check_svg "$work/$base.svg" "$work/$base.hlo"
  "$plexa" graph "$src/$prog" --optimized --fusion --output="$work/$base.opt.svg"
  "$plexa" opt --fusion "$src/$prog" >"$work/$base.opt.hlo"
  check_svg "$work/$base.opt.svg" "$work/$base.opt.hlo"
done
grep -q ">fusion (kLoop)<" "$work/mlp.opt.svg" || fail "no fusion box in the optimized mlp"

"$plexa" graph "$src/examples/mlp.hlo" --after=layout-assignment -o "$work/after.dot"
grep -q "after default/layout-assignment" "$work/after.dot" ||
  fail "the --after graph does not say after which pass"
"$plexa" graph "$src/examples/mlp.hlo" >"$work/stdout.dot"
grep -q "^digraph " "$work/stdout.dot" || fail "no DOT on stdout without -o"
"$plexa" graph "$src/examples/mlp.hlo" -o "$work/mlp.png"
[ "$(head -c 8 "$work/mlp.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  fail "mlp.png is not a PNG"

echo "== errors"
if "$plexa" graph "$src/examples/mlp.hlo" --after=no-such-pass -o "$work/x.svg" 2>"$work/err"; then
  fail "--after=no-such-pass succeeded"
fi
grep -q "no such pass; it ran: .*layout-assignment" "$work/err" || { cat "$work/err"; fail "--after error"; }
if "$plexa" graph "$src/examples/mlp.hlo" -o "$work/x.jpeg" 2>"$work/err"; then
  fail "a .jpeg output succeeded"
fi
grep -q "x.jpeg" "$work/err" || { cat "$work/err"; fail ".jpeg error"; }
if "$plexa" graph "$src/examples/mlp.hlo" -o 2>"$work/err"; then fail "-o without a file"; fi
grep -q "\-o needs a file name" "$work/err" || { cat "$work/err"; fail "-o error"; }
if "$plexa" opt "$src/examples/mlp.hlo" --pictures 2>"$work/err" >/dev/null; then
  fail "--pictures without --dump-dir succeeded"
fi
grep -q "dump-dir" "$work/err" || { cat "$work/err"; fail "--pictures error"; }

echo "== plexa opt --dump-dir --pictures"
"$plexa" opt --fusion "$src/examples/mlp.hlo" --dump-dir="$work/dumps" --pictures >/dev/null
n_hlo=$(ls "$work/dumps"/*.hlo | wc -l)
n_svg=$(ls "$work/dumps"/*.svg | wc -l)
[ "$n_hlo" -gt 1 ] && [ "$n_hlo" = "$n_svg" ] || fail "$n_hlo dumps but $n_svg pictures"
for hlo in "$work/dumps"/*.hlo; do
  check_svg "${hlo%.hlo}.svg" "$hlo" >/dev/null
done
echo "ok: $n_svg pictures checked"
