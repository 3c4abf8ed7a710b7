#!/usr/bin/env bash
# The CPU and oneDNN plugins' benchmarks (bench/cpu_bench.cc): installs the
# packages (the project's, plus the benchmark-only python3-torch and
# libopenblas0-pthread for the PyTorch peer), builds release with
# -DPLEXA_BUILD_BENCH=ON into build/bench, runs cpu_bench three times (the
# CPU plugin; the oneDNN plugin beside the CPU plugin; the oneDNN plugin
# with all_convolutions=1 relaxed_nan=1) and prints their markdown tables
# with the date, the CPU and how busy the machine was.
#   scripts/bench.sh [cpu_bench flags...]     e.g. --seconds=3 --only=dot,mlp
# Numbers are only meaningful on a quiet machine: the script prints the load
# average before and after the run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
BENCH_PACKAGES=(python3-torch libopenblas0-pthread)
missing=()
for p in "${BENCH_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "bench: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/plexa-ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
cmake -G Ninja -S . -B build/bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLEXA_BUILD_BENCH=ON \
  >/dev/null
cmake --build build/bench --target cpu_bench plexa_plugin_cpu plexa_plugin_onednn \
  -j"${BENCH_JOBS:-2}"

threads=2
for a in "$@"; do
  case "$a" in --threads=*) threads=${a#--threads=} ;; esac
done
# The machine may be shared: wait (up to BENCH_WAIT_QUIET seconds, default
# 300; 0 to skip) for 5 s in a row with the CPUs >= 95% idle.
quiet="not checked"
wait_s=${BENCH_WAIT_QUIET:-300}
if [ "$wait_s" -gt 0 ]; then
  quiet="never quiet within ${wait_s} s"
  deadline=$((SECONDS + wait_s)); streak=0
  read -r _ u n s i w q sq st _ </proc/stat
  prev_total=$((u + n + s + i + w + q + sq + st)); prev_idle=$((i + w))
  while [ $SECONDS -lt $deadline ]; do
    sleep 1
    read -r _ u n s i w q sq st _ </proc/stat
    total=$((u + n + s + i + w + q + sq + st)); idle=$((i + w))
    dt=$((total - prev_total)); di=$((idle - prev_idle))
    prev_total=$total; prev_idle=$idle
    if [ $dt -gt 0 ] && [ $((100 * di / dt)) -ge 95 ]; then
      streak=$((streak + 1))
    else
      streak=0
    fi
    if [ $streak -ge 5 ]; then quiet="quiet (5 s >= 95% idle) at start"; break; fi
  done
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
plugins=build/bench/bin/plugins
# The PyTorch peer is /usr/bin/python3 (Debian's python3-torch), not a
# python3 found first on PATH. Three runs, each with its peers measured in
# it: the CPU plugin; the oneDNN plugin beside the CPU plugin (defaults);
# the oneDNN plugin with every convolution and relu on oneDNN
# (all_convolutions=1 relaxed_nan=1), for the comparison with oneDNN itself.
run() {  # run TITLE ARGS...
  local title=$1; shift
  echo "## $title" >>"$log.tables"
  OMP_NUM_THREADS=$threads build/bench/bench/cpu_bench --python=/usr/bin/python3 \
    "$@" | tee "$log"
  {
    echo "- $(grep -m1 '^  PyTorch:' "$log" | sed 's/^  //')"
    echo
    sed -n '/^| workload |/,/^$/p' "$log"
  } >>"$log.tables"
}
: >"$log.tables"
trap 'rm -f "$log" "$log.tables"' EXIT
onednn_only=()
for a in "$@"; do
  case "$a" in --only=*) onednn_only=("$a") ;; esac
done
if [ ${#onednn_only[@]} -eq 0 ]; then
  onednn_only=(--only=dot,mlp,conv,resnet,bf16dot)
fi
run "CPU plugin" --plugin=$plugins/libplexa_plugin_cpu.so "$@"
run "oneDNN plugin (defaults) beside the CPU plugin" \
  --plugin=$plugins/libplexa_plugin_onednn.so \
  --baseline=$plugins/libplexa_plugin_cpu.so "$@" "${onednn_only[@]}"
run "oneDNN plugin, all_convolutions=1 relaxed_nan=1" \
  --plugin=$plugins/libplexa_plugin_onednn.so \
  --baseline=$plugins/libplexa_plugin_cpu.so \
  --plugin-option=all_convolutions=1 --plugin-option=relaxed_nan=1 "$@" \
  --only=conv,resnet,softmax
# The memory-bound programs the oneDNN plugin maps by default (pools,
# concatenation, channels-last batch norm, transpose, row sums) and those it
# leaves to the CPU plugin as measured slower on oneDNN (NCHW batch norm,
# layer norm, gelu), here all on oneDNN (all_primitives=1): the evidence
# for docs/onednn.md's policy. relaxed_nan=1 for the max pool.
run "oneDNN plugin, all_primitives=1 relaxed_nan=1: memory-bound programs" \
  --plugin=$plugins/libplexa_plugin_onednn.so \
  --baseline=$plugins/libplexa_plugin_cpu.so \
  --plugin-option=all_primitives=1 --plugin-option=relaxed_nan=1 \
  $(for p in max_pool avg_pool concat batch_norm_training_nhwc transpose \
             row_sum batch_norm_training layer_norm gelu; do
      echo "--hlo=$p.hlo"; done) \
  $(printf '%s\n' "$@" | grep -- '^--seconds=' || true)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "# Benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)," \
  "$(nproc) cores online; $threads threads for every library"
echo "- machine: $quiet; load average (1/5/15 min) before: $load_before;" \
  "after: $load_after; the 'other load' column is per measurement"
echo "- $(grep -m1 '^oneDNN' "$log")"
echo
cat "$log.tables"
