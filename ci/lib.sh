# shellcheck shell=bash
# ci/lib.sh - shared helpers for ci/setup, ci/vm, ci/demo and ci/test.
#
# Everything slow is cached outside the clone, in $SACC_CACHE
# (default /var/cache/sacc), keyed so that a second run does no work:
#   ccache/                          compiler cache for the QEMU build
#   src/qemu-<ver>/                  pristine `apt-get source qemu` tree
#   qemu-<ver>/tree, build/          patched tree and incremental build dir
#   qemu-<ver>-<hash>/               finished binaries for one qemu-model/ hash
#   kernel/<pkg>_<ver>/              vmlinuz and the six vfio modules
#   watch/<pkg>_<ver>-<hash>/        sacc_watch.ko for that kernel and source
#   kernel-src/<ver>/                what ci/setup keeps of linux-source-<M.m>
#                                    <ver> (dmatest.c, checkpatch.pl and its
#                                    two data files); the package is not kept
#   kdma/<pkg>_<ver>-<hash>/         sacc_dma.ko, sacc_dma_selftest.ko and
#                                    dmatest.ko for that kernel and source
#   dpdk-sdk/<ver>/                  DPDK's driver-SDK headers (dmadev/), from
#                                    `apt-get source dpdk` of the installed version

SACC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SACC_CACHE=${SACC_CACHE:-/var/cache/sacc}
SACC_BUILD=${SACC_BUILD:-$SACC_ROOT/build}

# One compiler cache for QEMU's builds and ours. BASEDIR and NOHASHDIR
# keep a clone's path out of the key: a fresh clone compiles nothing
# that an earlier one compiled.
export CCACHE_DIR=$SACC_CACHE/ccache CCACHE_BASEDIR=$SACC_ROOT CCACHE_NOHASHDIR=1

# Packages the pipeline needs, host and guest side.
SACC_PACKAGES=(
	dpkg-dev ccache ninja-build meson pkg-config gcc
	libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev flex bison python3-venv
	check libsubunit-dev libjson-c-dev perl
	busybox-static cpio gzip xz-utils zstd kmod
	make # sacc_watch.ko; ci/setup adds linux-headers-<guest kernel>
	seabios ipxe-qemu qemu-system-data
	gnuplot-nox librsvg2-bin # telemetry/tools/sacc-plots and its test
	clang-14 libclang-rt-14-dev # tests/libfuzzer/ in ci/test (about 55 MB)
)

# DPDK, for dmadev/ (the SACC dmadev driver) and ci/test's dmadev step:
# wanted unless SACC_DPDK=0.  libdpdk-dev (headers, pkg-config) and
# dpdk-dev (/usr/bin/dpdk-test, run in the guest) pull in 220 packages,
# 28 MB to download, 165 MiB installed (docs/performance.md, "DPDK's cost").
# ci/setup adds the driver-SDK headers from `apt-get source dpdk`.
SACC_DPDK_PACKAGES=(libdpdk-dev dpdk-dev)
dpdk_wanted() { [ "${SACC_DPDK:-1}" != 0 ]; }
dpdk_version() { dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null; }
# The driver-SDK headers of the installed DPDK, as ci/setup caches them.
dpdk_sdk_dir() {
	local v
	v=$(dpdk_version)
	[ -n "$v" ] || return 1
	echo "$SACC_CACHE/dpdk-sdk/${v//[:~]/_}"
}
# What ci/setup puts in the guest for the dmadev step (dmadev/guest-tree).
dpdk_guest_tree() { echo "$SACC_BUILD/dpdk-guest/dpdk"; }

# Kernel modules for vfio-pci, in load order. The one list: ci/setup
# extracts these, ci/vm writes them to the guest's load order file, which
# ci/guest-init reads.
SACC_MODULES=(irqbypass vfio vfio_iommu_type1 vfio_virqfd vfio-pci-core vfio-pci)

# ci/test's boot 2, which ci/soak boots again and again: a third device
# holds each big copy (x-copy-delay-us) so the stress suite can unmap
# under it (SACC_SLOW_DEV is its index); the DMA and ring fault suite
# and the stress suite as guest commands.
SACC_SLOW_BOOT=(--devices 3 --props 3:x-copy-delay-us=400000)
SACC_FAULT_SUITE="CK_INCLUDE_TAGS=dmar /opt/sacc/tests/sacc-guest-spec"
SACC_STRESS_SUITE="SACC_SLOW_DEV=2 /opt/sacc/tests/sacc-guest-stress"

# Firmware search path: SeaBIOS, QEMU's option ROMs, iPXE (all from Debian).
SACC_FIRMWARE_DIRS=(/usr/share/seabios /usr/share/qemu /usr/lib/ipxe/qemu)

# Each step says when it began, in seconds since the first script of
# this run started (inherited by the scripts it runs): where a slow run's
# time went is read off the log.
export SACC_T0=${SACC_T0:-$(date +%s)}
log() { printf '\033[1m==>\033[0m [%4ss] %s\n' $(($(date +%s) - SACC_T0)) "$*" >&2; }
note() { [ -n "${SACC_QUIET:-}" ] || printf '    %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$1" >&2
	shift
	for l in "$@"; do printf '       %s\n' "$l" >&2; done
	exit 1
}

# The QEMU source version Debian would give us (e.g. 1:7.2+dfsg-7+deb12u18).
qemu_src_version() {
	apt-cache showsrc qemu 2>/dev/null | awk '/^Version:/ {print $2}' |
		sort -V | tail -n 1
}

# src_hash PATH...: 16 hex digits over the files below PATHs (relative
# to the checkout; editor droppings left out), names and contents.
src_hash() {
	(cd "$SACC_ROOT" && find "$@" \
		-type f ! -name '.*' ! -name '*~' ! -name '*.swp' -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum) |
		sha256sum | cut -c1-16
}

# Hash of everything that changes the QEMU binaries we build (QEMU and
# its qtests): what qemu-model/apply.sh copies into QEMU's tree, and how
# it is configured.
qemu_model_hash() {
	src_hash qemu-model tests/qtest include/sacc_hw.h include/sacc_hw_names.h \
		hw/names.c rings/sacc_ring.h ci/qemu-configure
}

# Directory holding the finished QEMU binaries for this checkout.
qemu_dir() {
	local ver
	ver=$(qemu_src_version)
	[ -n "$ver" ] || return 1
	echo "$SACC_CACHE/qemu-${ver//[:~]/_}-$(qemu_model_hash)"
}

# The qtest binaries built beside QEMU, one per tests/qtest/*-test.c.
qemu_qtests() {
	local f
	for f in "$SACC_ROOT"/tests/qtest/*-test.c; do
		f=${f##*/}
		echo "${f%.c}"
	done
}

kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}'
}

kernel_dir() {
	local pkg ver
	pkg=$(kernel_pkg)
	[ -n "$pkg" ] || return 1
	ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
	echo "$SACC_CACHE/kernel/${pkg}_${ver}"
}

# The guest kernel's release (6.1.0-57-amd64): its headers package is
# linux-headers-<release>, its modules' vermagic starts with it.
kernel_release() {
	local pkg
	pkg=$(kernel_pkg)
	[ -n "$pkg" ] || return 1
	echo "${pkg#linux-image-}"
}

# The tracer module built for this kernel and this checkout's source.
watch_ko() {
	local kd hash
	kd=$(kernel_dir) || return 1
	hash=$(src_hash telemetry/watch include/sacc_hw.h include/sacc_watch.h)
	echo "$SACC_CACHE/watch/$(basename "$kd")-$hash/sacc_watch.ko"
}

# What ci/setup keeps of the guest kernel's own source (linux-source-6.1
# of exactly the image's version): dmatest.c, which Debian does not
# build (# CONFIG_DMATEST is not set), and checkpatch.pl for kernel/.
kernel_src_dir() {
	local kd
	kd=$(kernel_dir) || return 1
	echo "$SACC_CACHE/kernel-src/${kd##*_}"
}

# The dmaengine driver, its self-test client and dmatest, built for this
# kernel and this checkout's kernel/sacc_dma.
kdma_dir() {
	local kd hash
	kd=$(kernel_dir) || return 1
	# what goes into the modules: not the README
	hash=$(cd "$SACC_ROOT" && src_hash kernel/sacc_dma/Kbuild kernel/sacc_dma/shim \
		kernel/sacc_dma/*.[ch] include/sacc_hw.h)
	echo "$SACC_CACHE/kdma/$(basename "$kd")-$hash"
}

# filtered LOG REGEX COMMAND...: run COMMAND with its whole output in LOG,
# show only the lines matching REGEX (indented), and return COMMAND's own
# exit status. A pipeline into grep would fail under `set -o pipefail`
# whenever nothing matched, and end a `set -e` script before any fallback
# after it could run.
filtered() {
	local logf=$1 re=$2 rc=0
	shift 2
	"$@" >"$logf" 2>&1 || rc=$?
	grep -E "$re" "$logf" | sed 's/^/    /' >&2 || true
	return $rc
}

# After ci/setup: hand ci/vm what setup made, so each boot does not run
# setup again (ci/vm honours SACC_QEMU and SACC_KERNEL_DIR).
export_setup() {
	SACC_QEMU=$(qemu_dir)/qemu-system-x86_64
	SACC_KERNEL_DIR=$(kernel_dir)
	SACC_WATCH_KO=$(watch_ko)
	SACC_KDMA_DIR=$(kdma_dir)
	export SACC_QEMU SACC_KERNEL_DIR SACC_WATCH_KO SACC_KDMA_DIR
	hold_cached "$(dirname "$SACC_QEMU")" "$SACC_WATCH_KO" "$SACC_KDMA_DIR"
	# Held now; but another checkout's setup may have pruned it between
	# our ci/setup and the lock.
	[ -x "$SACC_QEMU" ] ||
		die "$SACC_QEMU is gone (another checkout's ci/setup pruned it before this run held it)." \
			"Run the command again: its ci/setup builds it back from ccache."
}

# hold_cached PATH...: keep the cached builds at (or holding) PATHs for as
# long as this shell runs: a shared lock on each folder, inherited by
# what it starts.  ci/setup prunes old builds only when it gets the lock
# alone (prune_cached), so another checkout's setup never deletes the
# QEMU a long run (ci/soak, ci/test) is still booting.
hold_cached() {
	local p fd
	for p in "$@"; do
		[ -f "$p" ] && p=$(dirname "$p")
		[ -d "$p" ] || continue
		exec {fd}<"$p"
		flock -s "$fd"
	done
}

# prune_cached KEEP DIR...: delete all but the KEEP newest of DIRs, each
# only if no one holds it (hold_cached).
prune_cached() {
	local keep=$1 d
	shift
	# (ls may race with another setup's prune: nothing to fail about)
	{ ls -dt "$@" 2>/dev/null || true; } | tail -n +$((keep + 1)) |
		while read -r d; do
			flock -xn "$d" rm -rf "$d" || note "kept $d: in use or gone"
		done
}

# Print ninja's "[n/total]" lines at most every 10 seconds, so a 5 minute
# build shows it is alive without flooding the log, and every diagnostic.
ninja_progress() {
	local last=0 now line
	while IFS= read -r line; do
		case "$line" in
		\[*/*\]*)
			now=$(date +%s)
			if [ $((now - last)) -ge 10 ]; then
				note "${line%% *} ${line#* }" | cut -c1-100 >&2
				last=$now
			fi
			;;
		# Compiler diagnostics, not meson's regeneration chatter (the
		# whole output is in the build log).
		*[Ee]rror* | *warning:* | FAILED*) printf '    %s\n' "$line" >&2 ;;
		esac
	done
}
