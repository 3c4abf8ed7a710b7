#!/usr/bin/env bash
# `plexa test-plugin --part=abi` on two plain-C plugins:
#  - one that crashes on NULL args (compat/old_plugin.c built with
#    -DOLD_PLUGIN_CRASH_ON_NULL): the crash fails errors/null-args with the
#    signal, every other check still runs, exit status 1;
#  - the same plugin without the fault: errors/null-args passes.
#   test_plugin_crash_test.sh PLEXA CRASHING_PLUGIN SOUND_PLUGIN
set -u
plexa=$1 crashing=$2 sound=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

if "$plexa" test-plugin "$crashing" --part=abi >"$out" 2>&1; then
  fail "test-plugin passed a plugin that crashes"
fi
# (a signal, or an exit status where a sanitizer caught the fault)
grep -qE "^  errors/null-args +FAILED: the plugin crashed" "$out" ||
  fail "the crash is not reported on errors/null-args"
grep -qE "^  client/devices +passed" "$out" ||
  fail "the checks after the crash did not run"
grep -qE "^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$" "$out" ||
  fail "no summary line"

"$plexa" test-plugin "$sound" --part=abi >"$out" 2>&1
grep -qE "^  errors/null-args +passed" "$out" ||
  fail "errors/null-args fails on the sound plugin"
grep -qE "^  errors/struct-size-0 +passed" "$out" ||
  fail "errors/struct-size-0 fails on the sound plugin"
cat "$out"
echo "ok"
