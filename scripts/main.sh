#!/usr/bin/env bash
# The main job: install, build, and run a real program (examples/mlp.hlo, a
# JAX-style MLP with softmax) with `plexa run` on the default backend, the
# LLVM JIT CPU plugin (through the C ABI), printing the result, the compile
# report and the timing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
build/release/bin/plexa run examples/mlp.hlo --print --report --repeat=100
