#!/usr/bin/env bash
# End-to-end tests of the `plexa` command line. Expected .npy files come
# from numpy (gen_cli_data.py); our writer produces numpy's exact bytes, so
# results are compared with cmp.
#   cli_test.sh PLEXA_BINARY BACKEND CUSTOM_CALL_LIBRARY
set -u
plexa=$1
backend=$2
custom_lib=$3
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() {  # check NAME COMMAND...: must succeed; keeps stdout/stderr in out/err
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name"; cat "$tmp/out" "$tmp/err"
  fi
}

check_error() {  # check_error NAME PATTERN COMMAND...: must fail, stderr ~ PATTERN
  local name=$1 pattern=$2; shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $name: expected a non-zero exit"
  elif ! grep -qE -- "$pattern" "$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $name: stderr does not match '$pattern':"; cat "$tmp/err"
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    fail=$((fail + 1)); echo "FAIL: $name: expected one line of error:"; cat "$tmp/err"
  else
    pass=$((pass + 1))
  fi
}

verify() {  # verify NAME COMMAND...: an assertion; leaves out/err alone
  local name=$1; shift
  if "$@" >/dev/null 2>"$tmp/verify_err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name"; cat "$tmp/verify_err"
  fi
}

run() { "$plexa" run --backend="$backend" "$@"; }

# A tuple result goes to --output-dir as 0.npy, 1.npy.
check "tuple result to output-dir" run "$here/add_mul.hlo" \
  --input="$data/x.npy" --input="$data/y.npy" --output-dir="$tmp/am"
verify "add result" cmp "$tmp/am/0.npy" "$data/add_mul_0.npy"
verify "multiply result" cmp "$tmp/am/1.npy" "$data/add_mul_1.npy"

# A token in a tuple result holds no data: skipped, and said so on stderr;
# the arrays around it keep their element numbers.
check "tuple with a token to output-dir" run "$here/add_and_token.hlo" \
  --input="$data/x.npy" --input="$data/y.npy" --output-dir="$tmp/tok"
verify "add beside a token" cmp "$tmp/tok/0.npy" "$data/add_mul_0.npy"
verify "no file for the token" test ! -e "$tmp/tok/1.npy"
verify "the token is named" grep -q "tuple element 1 is a token" "$tmp/err"

# An array result to --output.
check "reduce to output" run "$here/sum_rows.hlo" --input="$data/x.npy" \
  --output="$tmp/sum.npy"
verify "reduce result" cmp "$tmp/sum.npy" "$data/sum_rows.npy"

# --print writes the result as an HLO literal.
check "print" run "$here/sum_rows.hlo" --input="$data/x.npy" --print
verify "print text" grep -qE '^f32\[2\]\{0\} \{2.5, 3.25\}$|^f32\[2\] \{2.5, 3.25\}$' "$tmp/out"

# --repeat reports timing.
check "repeat" run "$here/sum_rows.hlo" --input="$data/x.npy" --repeat=3
verify "repeat timing" grep -q "median" "$tmp/err"

# No inputs: seeded random inputs and a note.
check "random inputs" run "$here/sum_rows.hlo" --print
verify "random note" grep -q "seeded random inputs" "$tmp/err"

# Replicas with all-reduce.
check "replicas" run "$here/all_reduce.hlo" --input="$data/v.npy" --replicas=2 \
  --output="$tmp/ar.npy"
verify "replica 0 result" cmp "$tmp/ar.replica0.npy" "$data/all_reduce.npy"
verify "replica 1 result" cmp "$tmp/ar.replica1.npy" "$data/all_reduce.npy"
# The module header's replica_count (as XLA prints it) is the default.
sed 's/^HloModule all_reduce$/HloModule all_reduce, replica_count=2/' \
  "$here/all_reduce.hlo" >"$tmp/ar_header.hlo"
check "replicas from the header" run "$tmp/ar_header.hlo" --input="$data/v.npy" \
  --output="$tmp/arh.npy"
verify "header replica 0 result" cmp "$tmp/arh.replica0.npy" "$data/all_reduce.npy"
verify "header replica 1 result" cmp "$tmp/arh.replica1.npy" "$data/all_reduce.npy"
# SPMD partitions: the header's replica_count=2, num_partitions=2 are the
# defaults; each replica's two partitions sum (flattened device ids).
check "partitions from the header" run "$here/spmd.hlo" --input="$data/v.npy" \
  --output="$tmp/spmd.npy" --print
for r in 0 1; do
  for p in 0 1; do
    verify "replica $r partition $p result" \
      cmp "$tmp/spmd.replica$r.partition$p.npy" "$data/spmd_replica$r.npy"
  done
done
verify "results printed per device" grep -q "^replica 1, partition 0: " "$tmp/out"
# --partitions overrides the header: with 3 partitions the flattened ids
# {0,1},{2,3} of 2 x 3 devices leave devices 4 and 5 in no group.
check_error "a device in no group" "replica 1, partition 1.*in none of the replica_groups" \
  run "$here/spmd.hlo" --input="$data/v.npy" --partitions=3
check_error "bad --partitions" "--partitions expects a positive integer" \
  run "$here/spmd.hlo" --partitions=0

# Dynamic shapes (docs/dynamic_shapes.md): a parameter f32[<=8,3] given 5
# rows; the results are cut to their run-time sizes.
check "dynamic shapes" run "$here/dynamic.hlo" --input="$data/x_dynamic.npy" \
  --output-dir="$tmp/dyn"
verify "dynamic row sums (5 of 8)" cmp "$tmp/dyn/0.npy" "$data/dynamic_0.npy"
verify "dynamic total" cmp "$tmp/dyn/1.npy" "$data/dynamic_1.npy"
verify "dynamic row count" cmp "$tmp/dyn/2.npy" "$data/dynamic_2.npy"
check "dynamic reshape of two dynamic dimensions" run "$here/dynamic_reshape.hlo" \
  --input="$data/x.npy" --output="$tmp/dynr.npy"
verify "dynamic reshape result" cmp "$tmp/dynr.npy" "$data/dynamic_reshape.npy"
check_error "dynamic dimension past its bound" "f32\[9,3\].*f32\[<=8,3\]" \
  run "$here/dynamic.hlo" --input="$data/x_dynamic_rows9.npy"

# Errors: one line, non-zero exit.
check_error "wrong input count" "takes 2 parameter\(s\) but 1" \
  run "$here/add_mul.hlo" --input="$data/x.npy"
check_error "dtype mismatch names both" "f64\[2,3\].*f32\[2,3\]" \
  run "$here/sum_rows.hlo" --input="$data/x_f64.npy"
check_error "shape mismatch names both" "f32\[3,2\].*f32\[2,3\]" \
  run "$here/sum_rows.hlo" --input="$data/x_23_wrong.npy"
check_error "malformed program has line:col" "bad_syntax.hlo:5:[0-9]+: error: " \
  run "$here/bad_syntax.hlo"
check_error "missing file" "error: .*nope.hlo" run "$here/nope.hlo"
check_error "tuple to --output" "use --output-dir" \
  run "$here/add_mul.hlo" --input="$data/x.npy" --input="$data/y.npy" \
  --output="$tmp/x.npy"
# Every allocation a program sizes is checked first: one error line, exit 1,
# never an abort (was an uncaught std::bad_alloc, exit 134).
check_error "huge program is out of memory, naming the instruction" \
  "instruction 'p' \(f32\[1000000000000\]\) needs 4000000000000 bytes, more than the memory limit" \
  run "$here/huge.hlo"
check_error "--memory-limit lowers the limit" \
  "instruction 'x' .* needs 24 bytes, more than the memory limit of 16 bytes" \
  run "$here/add_mul.hlo" --input="$data/x.npy" --input="$data/y.npy" \
  --memory-limit=16
check "--memory-limit with a suffix" run "$here/add_mul.hlo" \
  --input="$data/x.npy" --input="$data/y.npy" --memory-limit=1K
check_error "--memory-limit must be a byte count" \
  "--memory-limit expects a positive byte count" \
  run "$here/add_mul.hlo" --memory-limit=lots
# Replicas that take different paths (only replica 0 reaches the
# all-reduce): every backend reports it, none hangs (the CPU plugin used to).
check_error "diverging replicas are an error, not a hang" \
  "replica 1 finished without joining the collective" \
  timeout 60 "$plexa" run --backend="$backend" "$here/diverging_replicas.hlo" \
  --replicas=2
check_error "unknown option" "unknown option '--frobnicate'" \
  "$plexa" run "$here/sum_rows.hlo" --frobnicate
check_error "an unknown option suggests the nearest" \
  "unknown option '--outptu' \(did you mean '--output'\?\); \`plexa run --help\` lists the options" \
  "$plexa" run "$here/sum_rows.hlo" --outptu=x.npy
check_error "an unknown command suggests the nearest" \
  "unknown command 'rnu' \(did you mean 'run'\?\)" "$plexa" rnu

# Help: every command has its own, on stdout, exit 0.
check "plexa help" "$plexa" help
verify "help lists every command" grep -qE "^  plugins +list the plugins" "$tmp/out"
for command in check convert fmt run opt plugins test-plugin; do
  check "plexa $command --help" "$plexa" "$command" --help
  verify "$command --help is its usage" grep -q "^usage: plexa $command" "$tmp/out"
  check "plexa help $command" "$plexa" help "$command"
  verify "help $command is its usage" grep -q "^usage: plexa $command" "$tmp/out"
done
check "-h after other arguments" "$plexa" run "$here/sum_rows.hlo" -h
verify "run -h documents --custom-call-lib" grep -q -- "--custom-call-lib=PATH" "$tmp/out"
check_error "help for an unknown command" "unknown command 'nosuch'" \
  "$plexa" help nosuch

# --custom-call-lib: the target is found only in the library named.
check_error "a custom call without its library" "row_sums_f32_2x3" \
  run "$here/custom_row_sums.hlo" --input="$data/x.npy"
check "--custom-call-lib" run "$here/custom_row_sums.hlo" \
  --input="$data/x.npy" --custom-call-lib="$custom_lib" --output="$tmp/cc.npy"
verify "custom-call result" cmp "$tmp/cc.npy" "$data/sum_rows.npy"
check_error "--custom-call-lib that cannot be loaded" \
  "--custom-call-lib: cannot load '$tmp/nope.so'" \
  run "$here/custom_row_sums.hlo" --custom-call-lib="$tmp/nope.so"

# plugins: the plugin this test runs on is listed with its ABI version; a
# library that is not a plugin is refused with the reason, exit 1.
if [ "$backend" != interpreter ]; then
  check "plexa plugins $backend" "$plexa" plugins "$backend"
  verify "plugins names the plugin and its ABI" \
    grep -qE "^$backend  /.*libplexa_plugin_$backend\.so" "$tmp/out"
  verify "plugins gives the ABI version" grep -qE "^  ABI 1\.[0-9]+ \(this host: 1\.[0-9]+\)" "$tmp/out"
  check "plexa plugins --verbose" "$plexa" plugins "$backend" --verbose
  verify "verbose lists the devices" grep -qE "^    device 0: " "$tmp/out"
  check "plexa plugins (search path)" "$plexa" plugins
  verify "the search finds $backend" grep -qE "^$backend  /" "$tmp/out"
fi
# test-plugin: the conformance cases through the ABI on this plugin.
if [ "$backend" != interpreter ]; then
  check "test-plugin" "$plexa" test-plugin "$backend" --jobs=2 \
    --filter='binary/add*,collective/all_reduce*' \
    --plugin-option=num_devices=4 --junit="$tmp/junit.xml"
  verify "test-plugin's cases line" \
    grep -qE "^cases: [1-9][0-9]* passed, 0 failed, 0 skipped$" "$tmp/out"
  verify "test-plugin's last line" \
    grep -qE "^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$" "$tmp/out"
  verify "test-plugin's table" grep -qE "^collective +[1-9][0-9]* +0 +0$" "$tmp/out"
  verify "test-plugin's ABI checks" grep -qE "^abi: [0-9]+ passed, 0 failed, [0-9]+ skipped$" "$tmp/out"
  verify "JUnit XML" grep -q '<testcase classname="collective" name="all_reduce' \
    "$tmp/junit.xml"
  # Without devices for the replicas the replicated cases are skipped, each
  # with the reason.
  check "test-plugin skips what the plugin cannot run" \
    "$plexa" test-plugin "$backend" --filter='collective/all_reduce*'
  verify "the skip says why" \
    grep -qE "^skipped [0-9]+: needs [0-9] replicas; the client has 1 device" \
    "$tmp/out"
  # A case with a wrong expected value fails, naming the element.
  mkdir -p "$tmp/cases/bad"
  cat >"$tmp/cases/bad/wrong_sum.hlo" <<'HLO'
// source: hand (deliberately wrong: 1 + 2 is 3)
// input: f32[2] {1, 5}
// input: f32[2] {2, 5}
// expect: f32[2] {4, 10}
HloModule wrong_sum
ENTRY %main (a: f32[2], b: f32[2]) -> f32[2] {
  %a = f32[2]{0} parameter(0)
  %b = f32[2]{0} parameter(1)
  ROOT %s = f32[2]{0} add(%a, %b)
}
HLO
  if "$plexa" test-plugin "$backend" --part=cases --cases="$tmp/cases" >"$tmp/out" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: test-plugin passed a wrong case"; cat "$tmp/out"
  elif grep -q "^0 passed, 1 failed, 0 skipped$" "$tmp/out" &&
       grep -q "^FAILED bad/wrong_sum" "$tmp/out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: test-plugin on a wrong case:"; cat "$tmp/out" "$tmp/err"
  fi
fi
if "$plexa" plugins "$custom_lib" >"$tmp/out" 2>"$tmp/err"; then
  fail=$((fail + 1)); echo "FAIL: plugins accepted a library that is not a plugin"
elif grep -q "refused: .*is not a Plexa plugin" "$tmp/out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: plugins refusal:"; cat "$tmp/out" "$tmp/err"
fi

# check and fmt print a module that parses again to the same text.
check "check" "$plexa" check "$here/sum_rows.hlo"
cp "$tmp/out" "$tmp/checked.hlo"
check "fmt is a fixed point" "$plexa" fmt "$tmp/checked.hlo"
verify "fmt output equals check output" cmp "$tmp/out" "$tmp/checked.hlo"

# opt prints an optimized module that is itself a valid program: x*1+0
# simplifies to x.
cat >"$tmp/simplify.hlo" <<'HLO'
HloModule simplify
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3]{0} parameter(0)
  %one = f32[] constant(1)
  %ones = f32[3]{0} broadcast(%one), dimensions={}
  %m = f32[3]{0} multiply(%x, %ones)
  %zero = f32[] constant(0)
  %zeros = f32[3]{0} broadcast(%zero), dimensions={}
  ROOT %a = f32[3]{0} add(%m, %zeros)
}
HLO
check "opt" "$plexa" opt "$tmp/simplify.hlo"
cp "$tmp/out" "$tmp/opt.hlo"
verify "opt removes x*1+0" bash -c "! grep -qE 'multiply|add\(' '$tmp/opt.hlo'"
check "opt output is a valid program" "$plexa" check "$tmp/opt.hlo"
check "optimized run equals --no-opt run" run "$here/sum_rows.hlo" \
  --input="$data/x.npy" --output="$tmp/opt_sum.npy"
check "no-opt run" run "$here/sum_rows.hlo" --no-opt --input="$data/x.npy" \
  --output="$tmp/noopt_sum.npy"
verify "same results" cmp "$tmp/opt_sum.npy" "$tmp/noopt_sum.npy"

# Host feeds: --infeed files in order, outfeed values to --outfeed-dir.
check "feeds" run "$here/feeds.hlo" --infeed="$data/x.npy" \
  --infeed="$data/y.npy" --output="$tmp/feeds_sum.npy" \
  --outfeed-dir="$tmp/outfeed" --print --repeat=2
verify "feeds result" cmp "$tmp/feeds_sum.npy" "$data/add_mul_0.npy"
verify "outfeed value" cmp "$tmp/outfeed/0.npy" "$data/add_mul_1.npy"
verify "one outfeed value per program run" test ! -e "$tmp/outfeed/1.npy"
verify "outfeed printed" grep -q "^outfeed 0: " "$tmp/out"
check_error "an empty infeed queue is an error naming the infeed" \
  "in_y.*infeed queue is empty" run "$here/feeds.hlo" --infeed="$data/x.npy"

# Client options by name, checked by the plugin.
if [ "$backend" != interpreter ]; then
  check_error "--plugin-option needs NAME=VALUE" "expects NAME=VALUE" \
    run "$here/sum_rows.hlo" --input="$data/x.npy" --plugin-option=relaxed_nan
  check_error "an unknown plugin option names the known ones" \
    "has no option 'no_such_option' \(known: .*num_devices" \
    run "$here/sum_rows.hlo" --input="$data/x.npy" --plugin-option=no_such_option=1
fi
if [ "$backend" = onednn ]; then
  check "relaxed_nan" run "$here/sum_rows.hlo" --input="$data/x.npy" \
    --plugin-option=relaxed_nan=1 --output="$tmp/relaxed.npy"
  verify "relaxed_nan result" cmp "$tmp/relaxed.npy" "$data/sum_rows.npy"
fi

# --profile: a Chrome trace of every step (cpu and onednn report profiles).
if [ "$backend" = cpu ] || [ "$backend" = onednn ]; then
  check "profile" run "$here/sum_rows.hlo" --input="$data/x.npy" \
    --repeat=2 --profile="$tmp/trace.json" --output="$tmp/profiled.npy"
  verify "profiled result" cmp "$tmp/profiled.npy" "$data/sum_rows.npy"
  verify "profile summary on stderr" grep -qE "^profile: [0-9]+ events" "$tmp/err"
  verify "the trace is JSON with every step once per run" /usr/bin/python3 -c '
import collections, json, sys
t = json.load(open(sys.argv[1]))
steps = [e for e in t["traceEvents"] if e["ph"] == "X"]
counts = collections.Counter(e["name"] for e in steps)
assert counts and all(n == 2 for n in counts.values()), counts
assert all(e["dur"] >= 0 and e["args"]["replica"] == 0 for e in steps)
' "$tmp/trace.json"
else
  check_error "--profile needs a profiling plugin" "does not report profiles" \
    run "$here/sum_rows.hlo" --input="$data/x.npy" --profile="$tmp/trace.json"
fi

# The cpu and onednn plugins' own flags.
if [ "$backend" = cpu ] || [ "$backend" = onednn ]; then
  check "one thread" run "$here/sum_rows.hlo" --input="$data/x.npy" \
    --threads=1 --output="$tmp/t1.npy"
  verify "one-thread result" cmp "$tmp/t1.npy" "$data/sum_rows.npy"
  check "report" run "$here/sum_rows.hlo" --input="$data/x.npy" --report
  verify "report names kernels and peak memory" \
    grep -qE "kernels.*peak temporary memory" "$tmp/err"
  verify "report has the executable's statistics" \
    grep -qE "^executable: fingerprint [0-9a-f]{16}; .* flops" "$tmp/err"
  check_error "threads must be positive" "--threads expects a positive" \
    run "$here/sum_rows.hlo" --input="$data/x.npy" --threads=0
elif [ "$backend" = reference ]; then
  check_error "--threads is a cpu option" "options of the cpu and onednn plugins" \
    run "$here/sum_rows.hlo" --input="$data/x.npy" --threads=2
fi

echo "cli ($backend): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
