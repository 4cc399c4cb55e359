#!/bin/sh
# Prints the directory holding nvml.h, for the sim's libnvidia-ml.so.1.
# The CUDA toolkit's own (CUDA_HOME/include) when it has one, else
# $NVML_INCLUDE, else NVIDIA's nvidia-nvml-dev wheel from PyPI (the header
# of the toolkit's release), fetched once with pip into the user's cache.
# Usage: mk/nvml_header.sh CUDA_HOME
set -u
cuda_home=${1:-/usr/local/cuda}
version=13.0.87
if [ -f "$cuda_home/include/nvml.h" ]; then echo "$cuda_home/include"; exit 0; fi
if [ -n "${NVML_INCLUDE:-}" ] && [ -f "$NVML_INCLUDE/nvml.h" ]; then echo "$NVML_INCLUDE"; exit 0; fi
cache=${XDG_CACHE_HOME:-$HOME/.cache}/devcheck/nvidia-nvml-dev-$version
inc=$cache/nvidia/cu13/include
if [ ! -f "$inc/nvml.h" ]; then
    tmp=$(mktemp -d) || exit 1
    echo "devcheck: fetching nvml.h (nvidia-nvml-dev==$version, PyPI) into $cache" >&2
    if ! ${PYTHON:-python3} -m pip download -q --no-deps -d "$tmp" "nvidia-nvml-dev==$version" >&2 ||
       ! mkdir -p "$cache" ||
       ! ${PYTHON:-python3} -c 'import sys, zipfile, glob; zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]).extractall(sys.argv[2])' "$tmp" "$cache"; then
        rm -rf "$tmp"
        echo "devcheck: no nvml.h: set NVML_INCLUDE to a directory holding it, or install nvidia-nvml-dev==$version" >&2
        exit 1
    fi
    rm -rf "$tmp"
fi
echo "$inc"
