#!/bin/sh
# build_samples.sh MIRROR CACHE: builds the NVIDIA cuda-samples of the corpus
# (tests/corpus/nvidia_samples.sh) from the bare git mirror MIRROR into
# CACHE/cuda-samples-<commit>/NAME/, one directory per sample, and prints
# that cuda-samples-<commit> directory on its last line.
#
# NVIDIA's code never enters the repository: only the files a sample needs are
# taken from the mirror (the mirror lacks some large blobs of other samples,
# so it is never checked out whole).  Each sample is built with
# nvcc alone (no CMake), for sm_90 (the sim's devices) with the shared cudart,
# so the sim's runtime is the one that runs it.  A sample is built in a
# temporary directory renamed into place only when complete, with a .recipe
# stamp of its recipe and compiler: an interrupted build is never trusted,
# and a second run rebuilds nothing.  Two builds run at once (-j2).
# Exit status: 0 when every sample is there, 1 otherwise (the failed ones and
# the tail of each log on stderr).
set -u
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
JOBS=${CORPUS_JOBS:-2}

# The recipes, one a line: NAME DIR [ITEM...], DIR under Samples/.  Every .cu
# and .cpp file of DIR is compiled into NAME unless an ITEM names it:
#   fatbin=SRC:OUT  ptx=SRC:OUT  nvcc -fatbin / -ptx of SRC into OUT beside NAME
#   copy=SRC        SRC copied beside NAME (NVRTC compiles it at run time)
#   common=SRC      Common/SRC compiled into NAME too
#   -lLIB, -X...    added to the link / to nvcc's options
RECIPES='
asyncAPI                 0_Introduction/asyncAPI
simpleP2P                0_Introduction/simpleP2P
simpleMultiGPU           0_Introduction/simpleMultiGPU
simpleMultiCopy          0_Introduction/simpleMultiCopy
simpleStreams            0_Introduction/simpleStreams
simpleHyperQ             0_Introduction/simpleHyperQ
simpleCallback           0_Introduction/simpleCallback
simpleZeroCopy           0_Introduction/simpleZeroCopy
UnifiedMemoryStreams     0_Introduction/UnifiedMemoryStreams -Xcompiler=-fopenmp -lgomp -lcublas
cudaOpenMP               0_Introduction/cudaOpenMP -Xcompiler=-fopenmp -lgomp
vectorAdd                0_Introduction/vectorAdd
vectorAdd_nvrtc          0_Introduction/vectorAdd_nvrtc copy=vectorAdd_kernel.cu -lcuda -lnvrtc
vectorAddDrv             0_Introduction/vectorAddDrv fatbin=vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin -lcuda
simpleDrvRuntime         0_Introduction/simpleDrvRuntime fatbin=vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin -lcuda
vectorAddMMAP            0_Introduction/vectorAddMMAP fatbin=vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin -lcuda
matrixMulDrv             0_Introduction/matrixMulDrv fatbin=matrixMul_kernel.cu:matrixMul_kernel64.fatbin -lcuda
simpleIPC                0_Introduction/simpleIPC common=helper_multiprocess.cpp
systemWideAtomics        0_Introduction/systemWideAtomics
simpleAttributes         0_Introduction/simpleAttributes
simpleOccupancy          0_Introduction/simpleOccupancy
simpleCooperativeGroups  0_Introduction/simpleCooperativeGroups
deviceQuery              1_Utilities/deviceQuery
deviceQueryDrv           1_Utilities/deviceQueryDrv -lcuda
topologyQuery            1_Utilities/topologyQuery
streamOrderedAllocation  2_Concepts_and_Techniques/streamOrderedAllocation
streamOrderedAllocationP2P 2_Concepts_and_Techniques/streamOrderedAllocationP2P
streamOrderedAllocationIPC 2_Concepts_and_Techniques/streamOrderedAllocationIPC -lcuda common=helper_multiprocess.cpp
threadMigration          2_Concepts_and_Techniques/threadMigration fatbin=threadMigration_kernel.cu:threadMigration_kernel64.fatbin -lcuda
simpleCudaGraphs         3_CUDA_Features/simpleCudaGraphs
jacobiCudaGraphs         3_CUDA_Features/jacobiCudaGraphs
graphMemoryNodes         3_CUDA_Features/graphMemoryNodes
graphMemoryFootprint     3_CUDA_Features/graphMemoryFootprint
memMapIPCDrv             3_CUDA_Features/memMapIPCDrv ptx=memMapIpc_kernel.cu:memMapIpc_kernel64.ptx -lcuda common=helper_multiprocess.cpp
StreamPriorities         3_CUDA_Features/StreamPriorities
conjugateGradientMultiDeviceCG 4_CUDA_Libraries/conjugateGradientMultiDeviceCG
MonteCarloMultiGPU       5_Domain_Specific/MonteCarloMultiGPU -lcurand
p2pBandwidthLatencyTest  5_Domain_Specific/p2pBandwidthLatencyTest
'
ARCH='-gencode=arch=compute_90,code=[sm_90,compute_90]'
NVFLAGS="-std=c++17 -O2 -g -cudart shared $ARCH -Wno-deprecated-gpu-targets --extended-lambda"
# What a stamp covers besides the recipe line: the flags and the compiler.
TOOL="$NVFLAGS $("$NVCC" --version | tail -n 1)"

# extract PATH DEST: the files of the mirror's HEAD under PATH, into DEST/PATH.
# (Not `git archive`: it reads blobs outside PATH, some of which the mirror
# lacks.)
extract() {
    git --git-dir="$MIRROR" ls-tree -r HEAD -- "$1" >"$2/.files" || return 1
    [ -s "$2/.files" ] || { echo "build_samples: $1 is not in $MIRROR" >&2; return 1; }
    while read -r _mode _type _obj _path; do
        [ "$_type" = blob ] || continue
        mkdir -p "$2/$(dirname "$_path")" &&
        git --git-dir="$MIRROR" cat-file blob "$_obj" >"$2/$_path" || return 1
    done <"$2/.files"
    rm -f "$2/.files"
}

# build_one NAME DIR ITEM...: builds NAME into $OUT/NAME unless its stamp
# matches; run by the loop at the end as `build_samples.sh --one ...`.
build_one() {
    name=$1 dir=$2; shift 2
    stamp="$name $dir $* | $TOOL"
    [ -f "$OUT/$name/.recipe" ] && [ "$(cat "$OUT/$name/.recipe")" = "$stamp" ] && return 0
    tmp=$OUT/.$name.tmp.$$
    rm -rf "$tmp"; mkdir -p "$tmp/src" || return 1
    (
        set -e
        cd "$tmp"
        extract "Samples/$dir" src
        s=src/Samples/$dir
        skip="" link="" opts="" extra=""
        for it in "$@"; do
            case $it in
                fatbin=*|ptx=*)
                    k=${it%%=*} f=${it#*=}
                    skip="$skip ${f%%:*}"
                    "$NVCC" $NVFLAGS -I"$OUT/Common" -$k -o "${f#*:}" "$s/${f%%:*}" ;;
                common=*) extra="$extra $OUT/Common/${it#common=}" ;;
                copy=*) skip="$skip ${it#copy=}"; cp "$s/${it#copy=}" . ;;
                -l*) link="$link $it" ;;
                *) opts="$opts $it" ;;
            esac
        done
        srcs=""
        for f in "$s"/*.cu "$s"/*.cpp; do
            [ -e "$f" ] || continue
            case " $skip " in *" ${f##*/} "*) continue ;; esac
            srcs="$srcs $f"
        done
        "$NVCC" $NVFLAGS $opts -I"$OUT/Common" -I"$s" -o "$name" $srcs $extra \
            -L"$CUDA_HOME/lib64" -L"$CUDA_HOME/lib64/stubs" $link -lpthread
        rm -rf src
    ) >"$tmp.log" 2>&1
    # (not `( ... ) || ...`: set -e does not apply on the left of ||)
    [ $? -eq 0 ] && [ -x "$tmp/$name" ] || { echo "build_samples: $name did not build ($dir):" >&2
                           tail -n 15 "$tmp.log" | sed 's/^/    | /' >&2
                           rm -rf "$tmp" "$tmp.log"; return 1; }
    printf '%s\n' "$stamp" >"$tmp/.recipe"
    rm -rf "$OUT/$name" && mv "$tmp" "$OUT/$name" && rm -f "$tmp.log"
}

if [ "${1:-}" = --one ]; then
    shift
    build_one "$@"
    exit
fi

MIRROR=$1
CACHE=$2
commit=$(git --git-dir="$MIRROR" rev-parse HEAD) || exit 1
OUT=$CACHE/cuda-samples-$commit
mkdir -p "$OUT" || exit 1

# Common/ (NVIDIA's helper headers), taken once per commit.
if [ ! -e "$OUT/Common/.ok" ]; then
    rm -rf "$OUT/.Common.tmp.$$" && mkdir -p "$OUT/.Common.tmp.$$" &&
    extract Common "$OUT/.Common.tmp.$$" &&
    touch "$OUT/.Common.tmp.$$/Common/.ok" && rm -rf "$OUT/Common" &&
    mv "$OUT/.Common.tmp.$$/Common" "$OUT/Common" && rm -rf "$OUT/.Common.tmp.$$" ||
    { echo "build_samples: cannot extract Common/ from $MIRROR" >&2; rm -rf "$OUT/.Common.tmp.$$"; exit 1; }
fi

export MIRROR OUT
printf '%s\n' "$RECIPES" | grep -v '^$' | xargs -P "$JOBS" -L 1 sh "$0" --one
rc=$?
echo "$OUT"
[ $rc -eq 0 ]
