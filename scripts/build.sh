#!/usr/bin/env bash
# Configures and builds one flavour of Plexa with Ninja and ccache.
#   scripts/build.sh [release|asan|tsan] [TARGET...]   (default: release, all)
# Build trees: build/release, build/asan, build/tsan.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
shift || true
# PLEXA_TEST_COMPILE_OPTIONS: the gtest binaries' own sources
# (cmake/PlexaTesting.cmake). Under the sanitizers they compile at -O0,
# about 3 times faster than at -O1 (measured under ASan+UBSan: 39 s -> 14 s
# for core/verifier/verifier_test.cc), while the libraries they test keep
# the flavour's optimization.
case "$flavour" in
  release) extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
                  -DPLEXA_TEST_COMPILE_OPTIONS=) ;;
  # The sanitizer flavours keep line tables only (-g1: enough for the
  # sanitizers' stack traces), which compiles about 30% faster than -g: they
  # are CI's flavours, and most of a cold CI run is compiling them.
  # UBSan without three checks that tripled its compile time
  # (docs/testing.md: core/eval/elementwise.cc at -O1 with ASan 10 s, with
  # all of UBSan 33 s, without these 11 s): null (a null dereference is
  # still caught, by ASan's SEGV report), alignment (x86 loads misaligned
  # data correctly, but a misaligned typed access is no longer reported)
  # and pointer-overflow.
  asan) extra=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1"
              "-DCMAKE_C_FLAGS_DEBUG=-g1 -O1"
              -DPLEXA_SANITIZE=address,undefined
              -DPLEXA_SANITIZE_EXCLUDE=null,alignment,pointer-overflow
              -DPLEXA_TEST_COMPILE_OPTIONS=-O0) ;;
  # Debian's oneDNN runs on libgomp, which TSan cannot see into (every
  # OpenMP team would be a false race): the TSan build leaves it out. -O1
  # (not -O2): about 30% faster to compile, and TSan's runs are short.
  tsan) extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLEXA_SANITIZE=thread
               "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
               "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
               -DPLEXA_WITH_ONEDNN=OFF -DPLEXA_TEST_COMPILE_OPTIONS=-O0) ;;
  *) echo "usage: $0 [release|asan|tsan] [TARGET...]" >&2; exit 2 ;;
esac
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/plexa-ccache}
# Cache hits across different checkouts of the repository (CI clones anew).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
cmake -S . -B "build/$flavour" -G Ninja "${extra[@]}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "build/$flavour" -j"$(nproc)" "${targets[@]}"
