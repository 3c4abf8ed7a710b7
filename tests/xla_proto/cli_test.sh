#!/usr/bin/env bash
# XLA's binary protos through the `plexa` command line: the textprotos of
# this folder encoded with protoc, then
#   plexa run SNAPSHOT.pb --print (the snapshot's own arguments; the result
#     computed by hand), plexa check / convert on .pb files, convert -o X.pb
#     and back, a .pb without the extension (recognized as binary), and a
#     truncated file's error.
#   cli_test.sh PLEXA_BINARY PROTOC
set -u
plexa=$1
protoc=$2
here=$(cd "$(dirname "$0")" && pwd)
schema=$here/../../core/xla_proto
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
for name in mlp control_snapshot more_ops; do
  bash "$here/encode.sh" "$protoc" "$schema" "$here/$name.textproto" "$tmp/$name.pb" ||
    bad "protoc could not encode $name.textproto"
done

# while x3 doublings, negate (p = true), + x, squared: {1,-2} -> {49, 196}.
out=$("$plexa" run "$tmp/control_snapshot.pb" --backend=interpreter --print 2>"$tmp/err")
[ "$out" = "f32[2] {49, 196}" ] || { bad "run snapshot printed '$out'"; cat "$tmp/err"; }
grep -q "random" "$tmp/err" && bad "run snapshot used random inputs"

# plexa check prints the imported module.
"$plexa" check "$tmp/mlp.pb" >"$tmp/out" 2>"$tmp/err" || { bad "check mlp.pb"; cat "$tmp/err"; }
grep -qF "ROOT %reduce.12 = f32[2]{0} reduce(f32[2,2]{1,0} %relu.13, f32[] %zero.10), dimensions={1}, to_apply=%region_add.1" "$tmp/out" ||
  bad "check mlp.pb: no reduce line"

# Binary content without the .pb extension.
cp "$tmp/mlp.pb" "$tmp/mlp.bin"
"$plexa" check "$tmp/mlp.bin" >/dev/null 2>"$tmp/err" || { bad "check mlp.bin"; cat "$tmp/err"; }

# convert writes HLO text that reads back.
if "$plexa" convert "$tmp/more_ops.pb" -o "$tmp/more_ops.hlo" 2>"$tmp/err"; then
  "$plexa" check "$tmp/more_ops.hlo" >/dev/null 2>"$tmp/err" || { bad "check converted more_ops.hlo"; cat "$tmp/err"; }
else
  bad "convert more_ops.pb"; cat "$tmp/err"
fi

# convert -o X.pb writes an HloModuleProto that reads back to the same module.
if "$plexa" convert "$tmp/mlp.pb" -o "$tmp/back.pb" 2>"$tmp/err"; then
  "$plexa" check "$tmp/mlp.pb" >"$tmp/a" 2>&1
  "$plexa" check "$tmp/back.pb" >"$tmp/b" 2>&1
  cmp -s "$tmp/a" "$tmp/b" || { bad "mlp.pb -> back.pb reads back differently"; diff "$tmp/a" "$tmp/b"; }
else
  bad "convert -o back.pb"; cat "$tmp/err"
fi

# A truncated file: one located line, exit status 1.
head -c 60 "$tmp/mlp.pb" >"$tmp/cut.pb"
if "$plexa" check "$tmp/cut.pb" >/dev/null 2>"$tmp/err"; then
  bad "a truncated file was accepted"
else
  grep -q "^$tmp/cut.pb: error: not a serialized XLA HloModuleProto" "$tmp/err" ||
    { bad "truncated file: unexpected message"; cat "$tmp/err"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "truncated file: more than one line"
fi

if [ "$fail" -ne 0 ]; then echo "$fail check(s) failed"; exit 1; fi
echo "all xla_proto CLI checks passed"
