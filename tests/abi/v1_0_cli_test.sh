#!/usr/bin/env bash
# `plexa run --backend=PATH` on the 1.0 runner plugin (compat/v1_0_runner,
# built against the frozen 1.0 header): the programs of v1_0_programs/ on
# their numpy inputs, compared byte for byte with numpy's results
# (v1_0_programs/gen_data.py), with and without the optimization pipeline;
# replicas; and the clean refusal of what came after 1.0.
#   v1_0_cli_test.sh PLEXA_BINARY PLUGIN.so
set -u
plexa=$1
plugin=$2
here=$(cd "$(dirname "$0")" && pwd)
programs=$here/v1_0_programs
data=$programs/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {  # ok NAME COMMAND...: must succeed
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $name"; cat "$tmp/out" "$tmp/err"
  fi
}

verify() {  # verify NAME COMMAND...: an assertion; leaves out/err alone
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $name"
  fi
}

refused() {  # refused NAME PATTERN COMMAND...: must fail with one line ~ PATTERN
  local name=$1 pattern=$2; shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $name: expected a non-zero exit"
  elif ! grep -qE -- "$pattern" "$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    fail=$((fail + 1)); echo "FAIL: $name: expected one line matching '$pattern':"
    cat "$tmp/err"
  else
    pass=$((pass + 1))
  fi
}

run() { "$plexa" run --backend="$plugin" "$@"; }

for opt in --no-opt ""; do
  ok "elementwise $opt" run "$programs/elementwise.hlo" $opt \
    --input="$data/elementwise_x.npy" --input="$data/elementwise_y.npy" \
    --output="$tmp/elementwise.npy"
  ok "elementwise result $opt" cmp "$tmp/elementwise.npy" "$data/elementwise.npy"
  ok "dot $opt" run "$programs/dot.hlo" $opt --input="$data/dot_a.npy" \
    --input="$data/dot_b.npy" --output="$tmp/dot.npy"
  ok "dot result $opt" cmp "$tmp/dot.npy" "$data/dot.npy"
  ok "reduce $opt" run "$programs/reduce.hlo" $opt \
    --input="$data/reduce_x.npy" --output-dir="$tmp/reduce"
  ok "reduce sum $opt" cmp "$tmp/reduce/0.npy" "$data/reduce_0.npy"
  ok "reduce max $opt" cmp "$tmp/reduce/1.npy" "$data/reduce_1.npy"
  ok "while $opt" run "$programs/while.hlo" $opt --input="$data/while_n.npy" \
    --input="$data/while_v.npy" --output-dir="$tmp/while"
  ok "while count $opt" cmp "$tmp/while/0.npy" "$data/while_0.npy"
  ok "while value $opt" cmp "$tmp/while/1.npy" "$data/while_1.npy"
  rm -rf "$tmp/reduce" "$tmp/while"
done

# --print: the result as an HLO literal ({{58, 64}, {139, 154}} by hand).
ok "print" run "$programs/dot.hlo" --input="$data/dot_a.npy" \
  --input="$data/dot_b.npy" --print
verify "print text" grep -qxF 'f32[2,2] { { 58, 64 }, { 139, 154 } }' "$tmp/out"

# Two replicas on two devices (a client option of this plugin), each
# running the while loop on the same inputs.
ok "replicas" run "$programs/while.hlo" --replicas=2 \
  --plugin-option=num_devices=2 --input="$data/while_n.npy" \
  --input="$data/while_v.npy" --output-dir="$tmp/replicas"
ok "replica 0" cmp "$tmp/replicas/replica0/1.npy" "$data/while_1.npy"
ok "replica 1" cmp "$tmp/replicas/replica1/1.npy" "$data/while_1.npy"

# What came after 1.0: host feeds (1.1) and profiles (1.2).
cat >"$tmp/infeed.hlo" <<'HLO'
HloModule infeed
ENTRY main {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  ROOT x = f32[2] get-tuple-element(in), index=0
}
HLO
refused "infeed needs ABI 1.1" "infeed and outfeed need host feeds, which came with ABI 1.1" \
  run "$tmp/infeed.hlo" --no-opt
dot_inputs=(--input="$data/dot_a.npy" --input="$data/dot_b.npy")
refused "no profiles from a 1.0 plugin" "does not report profiles" \
  run "$programs/dot.hlo" "${dot_inputs[@]}" --profile="$tmp/profile.json"
refused "an unknown client option is named" "unknown option 'frobnicate'" \
  run "$programs/dot.hlo" "${dot_inputs[@]}" --plugin-option=frobnicate=1

echo "v1_0_cli_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
