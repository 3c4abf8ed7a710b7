#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test:
#   1. the AddressSanitizer + UndefinedBehaviorSanitizer build: every test;
#   2. the ThreadSanitizer build of what runs threads (the evaluator's
#      replicas, 8 threads executing one executable through the ABI, the
#      SDK's work queue and the Vulkan plugin's tests).
# The Python package's tests run in the first (python/CMakeLists.txt).
# Every test runs in the sanitizer build, which finds what the release
# build would and more; building the release flavour too doubled a cold
# CI run (docs/testing.md). PLEXA_TEST_FLAVOURS="release asan" runs the
# release build's tests as well (scripts/main.sh builds the release
# flavour's main job).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)
status=0
start=$(date +%s)

for flavour in ${PLEXA_TEST_FLAVOURS:-asan}; do
  echo "== $flavour: build =="
  bash scripts/build.sh "$flavour"
  echo "== $flavour: tests =="
  # intercept_tls_get_addr=0: GCC 12's sanitizer runtime can misread a
  # dlopen'd library's dynamic TLS block (the plugins and libLLVM have
  # thread_local data) as an old-glibc header, and LeakSanitizer's tracer
  # then dies at exit with "Tracer caught signal 11" after the test passed
  # (fixed in GCC 13's runtime). Leak checking stays on.
  export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if ! ctest --test-dir "build/$flavour" --output-on-failure -j"$jobs"; then
    status=1
  fi
  echo "== $flavour: done at $(( $(date +%s) - start )) s =="
done

echo "== tsan: build and run the threaded tests =="
# plexa_abi_tsan_check builds only what the tests labelled tsan need and
# runs them (ctest -L tsan); the evaluator's replica tests run directly.
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
if ! bash scripts/build.sh tsan plexa_eval_test plexa_abi_tsan_check; then
  echo "FAILED: ThreadSanitizer build or tests"
  status=1
elif ! build/tsan/core/plexa_eval_test --gtest_brief=1; then
  echo "FAILED under ThreadSanitizer: plexa_eval_test"
  status=1
fi

echo "== all tests finished in $(( $(date +%s) - start )) s; status $status =="
exit $status
