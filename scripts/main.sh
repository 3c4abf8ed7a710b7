#!/usr/bin/env bash
# The main job: install, build, and run a real program (examples/mlp.hlo, a
# JAX-style MLP with softmax) with `plexa run`, through the C ABI on the
# reference plugin, printing the result and the timing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
build/release/bin/plexa run examples/mlp.hlo --backend=reference --print \
  --repeat=20
