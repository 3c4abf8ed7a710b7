#!/usr/bin/env bash
# Installs every Debian package Plexa needs (build, tests, plugins, benchmarks).
# Idempotent: when everything is present it only runs dpkg queries (< 1 s).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git clang-format
  libabsl-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev libncurses-dev
  libdnnl-dev ocl-icd-opencl-dev
  libvulkan-dev mesa-vulkan-drivers glslang-dev glslang-tools spirv-tools
  vulkan-validationlayers
  python3 python3-numpy
  graphviz
  python3-dev pybind11-dev python3-pybind11 python3-pytest
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} package(s): ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi
