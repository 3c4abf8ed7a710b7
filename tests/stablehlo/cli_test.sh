#!/usr/bin/env bash
# The StableHLO programs of this folder through the `plexa` command line:
#   plexa run PROGRAM.mlir --input=... (results compared byte for byte with
#     numpy's where the case is marked exact, else checked for the same
#     .npy header; the gtest programs_test compares every value),
#   plexa convert PROGRAM.mlir -o P.hlo, then plexa run P.hlo: the same
#     bytes as running the .mlir,
#   plexa check / opt on .mlir, and located one-line errors.
#   cli_test.sh PLEXA_BINARY [BACKEND]
set -u
plexa=$1
backend=${2:-interpreter}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for prog in "$here"/*.mlir; do
  name=$(basename "$prog" .mlir)
  for case_dir in "$here/data/$name"/*/; do
    case_dir=${case_dir%/}
    label="$name/$(basename "$case_dir")"
    inputs=()
    for i in $(seq 0 9); do
      [ -f "$case_dir/in$i.npy" ] && inputs+=("--input=$case_dir/in$i.npy")
    done
    outs=$(ls "$case_dir"/out*.npy | wc -l)
    rm -rf "$tmp/mlir" "$tmp/hlo"; mkdir -p "$tmp/mlir" "$tmp/hlo"
    if [ "$outs" -eq 1 ]; then
      dest=(--output="$tmp/mlir/0.npy"); dest_hlo=(--output="$tmp/hlo/0.npy")
    else
      dest=(--output-dir="$tmp/mlir"); dest_hlo=(--output-dir="$tmp/hlo")
    fi
    if ! "$plexa" run "$prog" --backend="$backend" "${inputs[@]}" "${dest[@]}" \
        >"$tmp/out" 2>"$tmp/err"; then
      bad "$label: plexa run"; cat "$tmp/err"; continue
    fi
    for k in $(seq 0 $((outs - 1))); do
      want=$case_dir/out$k.npy got=$tmp/mlir/$k.npy
      if [ -f "$case_dir/exact" ]; then
        if cmp -s "$want" "$got"; then ok; else bad "$label: result $k differs from numpy"; fi
      elif [ "$(head -n1 "$want" | od -An -tx1)" = "$(head -n1 "$got" | od -An -tx1)" ] &&
           [ "$(stat -c %s "$want")" = "$(stat -c %s "$got")" ]; then
        ok
      else
        bad "$label: result $k has another dtype or shape than numpy's"
      fi
    done
    # The converted HLO runs to the same bytes.
    if "$plexa" convert "$prog" -o "$tmp/p.hlo" >"$tmp/out" 2>"$tmp/err" &&
       "$plexa" run "$tmp/p.hlo" --backend="$backend" "${inputs[@]}" "${dest_hlo[@]}" \
         >"$tmp/out" 2>"$tmp/err"; then
      for k in $(seq 0 $((outs - 1))); do
        if cmp -s "$tmp/mlir/$k.npy" "$tmp/hlo/$k.npy"; then ok; else
          bad "$label: the converted .hlo gives another result $k"; fi
      done
    else
      bad "$label: convert or run of the converted program"; cat "$tmp/err"
    fi
  done
  # check and opt read .mlir; convert without -o prints the same text as -o.
  if "$plexa" check "$prog" >"$tmp/check" 2>"$tmp/err" &&
     "$plexa" opt "$prog" >/dev/null 2>>"$tmp/err" &&
     "$plexa" convert "$prog" >"$tmp/stdout.hlo" 2>>"$tmp/err" &&
     "$plexa" convert "$prog" --output="$tmp/flag.hlo" 2>>"$tmp/err" &&
     cmp -s "$tmp/stdout.hlo" "$tmp/flag.hlo" && grep -q '^ENTRY' "$tmp/check"; then
    ok
  else
    bad "$name: check/opt/convert"; cat "$tmp/err"
  fi
done

# A located, one-line error for a malformed program and an unknown op; the
# content decides when the extension does not.
printf 'module @m {\n  func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n    %%0 = stablehlo.frob %%a : tensor<2xf32>\n    return %%0 : tensor<2xf32>\n  }\n}\n' >"$tmp/bad.mlir"
if "$plexa" run "$tmp/bad.mlir" --backend="$backend" >"$tmp/out" 2>"$tmp/err"; then
  bad "unknown op: expected a failure"
elif grep -qE "bad.mlir:3:10: error: unsupported operation 'stablehlo.frob'" "$tmp/err" &&
     [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
  ok
else
  bad "unknown op: wrong message"; cat "$tmp/err"
fi
cp "$here/mlp.mlir" "$tmp/mlp.txt"
if "$plexa" check "$tmp/mlp.txt" >/dev/null 2>"$tmp/err"; then ok; else
  bad "MLIR content with another extension"; cat "$tmp/err"; fi
printf 'module @m {\n  func.func @main(%%a: tensor<2x?xf32>) -> tensor<2xf32> {\n' >"$tmp/dyn.mlir"
if "$plexa" convert "$tmp/dyn.mlir" >"$tmp/out" 2>"$tmp/err"; then
  bad "dynamic type: expected a failure"
elif grep -qE "dyn.mlir:2:23: error: dynamic shapes are not supported: 'tensor<2x\?xf32>'" "$tmp/err"; then
  ok
else
  bad "dynamic type: wrong message"; cat "$tmp/err"
fi

echo "stablehlo cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
