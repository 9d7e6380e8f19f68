#!/usr/bin/env bash
# Lockstep side by side with Mesa's lavapipe, a CPU Vulkan driver, on the
# kernels of benches/kernels/: compiles them to SPIR-V with glslang into
# target/peer/, builds lockstep-peer (crates/lockstep-bench) in release and
# runs it on one thread, then on one thread per core, with lavapipe at
# subgroup size 8 and Lockstep at wave size 8. Prints one table per thread
# count (see docs/performance.md).
#
#   scripts/peer.sh [--install] [lockstep-peer options, e.g. --kernel block_scan --runs 3]
#
# --install: when glslang, the Vulkan loader or lavapipe is missing, install
# them with apt-get (as root); without it the script says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES="mesa-vulkan-drivers glslang-tools libvulkan-dev"
ICD="${LVP_ICD:-/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json}"
OUT=target/peer

install=0
args=()
for arg in "$@"; do
    case "$arg" in
        --install) install=1 ;;
        *) args+=("$arg") ;;
    esac
done

missing() {
    local libs
    libs="$( (ldconfig -p || /sbin/ldconfig -p) 2>/dev/null || true)"
    local what=()
    command -v glslangValidator >/dev/null 2>&1 || what+=("glslangValidator")
    [[ -f "$ICD" ]] || what+=("lavapipe ($ICD)")
    [[ "$libs" == *libvulkan.so.1* ]] || what+=("the Vulkan loader (libvulkan.so.1)")
    echo "${what[*]:-}"
}

if [[ -n "$(missing)" ]]; then
    if [[ $install == 1 && $(id -u) == 0 ]]; then
        apt-get update
        # shellcheck disable=SC2086
        apt-get install -y $PACKAGES
    fi
    if [[ -n "$(missing)" ]]; then
        echo "missing: $(missing)" >&2
        echo "install with: apt-get install -y $PACKAGES" >&2
        echo "(or run as root: scripts/peer.sh --install)" >&2
        exit 1
    fi
fi

# HLSL compute shaders to SPIR-V 1.3 (Vulkan 1.1). With --hlsl-iomap the
# bindings follow the HLSL registers: t<n> at binding n, u<n> at 16 + n, so
# t0 and u0 do not collide. WAVE_PREFIX_INCLUSIVE: glslang compiles
# WavePrefixSum as an inclusive scan; the kernels subtract the lane's own
# value when it is defined. The prefix probe is compiled without it, to show
# what glslang does.
GLSLANG_FLAGS=(-V -D -S comp -e main --target-env vulkan1.1
    --hlsl-iomap --shift-texture-binding 0 --shift-uav-binding 16)
# Kernels glslang cannot compile (it has no WaveMatch).
NO_SPIRV=" match_histogram "

compile() {
    local log
    if ! log="$(glslangValidator "${GLSLANG_FLAGS[@]}" "$@" 2>&1)"; then
        echo "$log" >&2
        echo "glslangValidator failed: ${GLSLANG_FLAGS[*]} $*" >&2
        exit 1
    fi
}

mkdir -p "$OUT"
echo "glslangValidator ${GLSLANG_FLAGS[*]} -DWAVE_PREFIX_INCLUSIVE <kernel>.hlsl -o $OUT/<kernel>.spv" >&2
for src in benches/kernels/*.hlsl; do
    name="$(basename "$src" .hlsl)"
    [[ "$NO_SPIRV" == *" $name "* ]] && continue
    extra=()
    # Kernels whose opening comment asks for 16-bit types.
    if sed -n '/^\/\//!q;p' "$src" | grep -q -- -enable-16bit-types; then
        extra=(--hlsl-enable-16bit-types)
    fi
    compile ${extra[@]+"${extra[@]}"} -DWAVE_PREFIX_INCLUSIVE "$src" -o "$OUT/$name.spv"
done
compile crates/lockstep-bench/shaders/prefix_probe.hlsl -o "$OUT/prefix_probe.spv"

cargo build --release --locked -p lockstep-bench --bin lockstep-peer
peer="${CARGO_TARGET_DIR:-target}/release/lockstep-peer"

export VK_ICD_FILENAMES="$ICD"
# 256-bit vectors: subgroups of 8 lanes. A cached shader built for another
# width would be reused, so the shader cache is off.
export LP_NATIVE_VECTOR_WIDTH=256
export MESA_SHADER_CACHE_DISABLE=true

echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
status=0
for threads in $( (echo 1; nproc) | sort -un); do
    echo
    if [[ $threads == 1 ]]; then echo "## 1 thread"; else echo "## $threads threads"; fi
    LP_NUM_THREADS=$threads "$peer" --threads "$threads" --spirv-dir "$OUT" ${args[@]+"${args[@]}"} || status=$?
done
exit $status
