#!/usr/bin/env bash
# Installs what gpulab needs to build and test on Debian 12 (CUDA is optional: nvcc on PATH
# turns the GPU backend on; without it gpulab builds with its CPU emulator alone).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake libcli11-dev libfmt-dev nlohmann-json3-dev catch2 libboost-context-dev \
  bubblewrap libxml2-utils \
  tmux man-db groff-base bsdextrautils dpkg-dev file \
  libopenblas-dev libthrust-dev >/dev/null
echo "gpulab: dependencies installed"
