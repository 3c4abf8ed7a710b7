#!/usr/bin/env bash
# The main job: install, build, and run a real program (examples/mlp.hlo)
# with the plexa command line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
build/release/bin/plexa check examples/mlp.hlo
