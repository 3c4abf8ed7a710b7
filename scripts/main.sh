#!/usr/bin/env bash
# The main job: install, build, and run a real program (examples/mlp.hlo, a
# JAX-style MLP with softmax) with `plexa run` on the default backend, the
# LLVM JIT CPU plugin (through the C ABI), printing the result, the compile
# report and the timing. It builds only what that needs: the plexa command
# and the CPU plugin (not the tests, the other plugins or the benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release plexa plexa_plugin_cpu
build/release/bin/plexa run examples/mlp.hlo --print --report --repeat=100
