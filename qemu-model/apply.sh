#!/bin/bash
# SPDX-License-Identifier: MIT
#
# apply.sh QEMU_SRC_DIR - add the SACC device and its qtest to a QEMU tree.
#
# Copies the device's sources (qemu-model/sacc*.c, sacc.h) and
# sacc.json (the monitor's schema), include/sacc_hw.h, the ring
# arithmetic (rings/sacc_ring.h), the names table (hw/names.c,
# include/sacc_hw_names.h) and the qtests (tests/qtest/: a binary per
# *-test.c, the SACC ones linked with sacc-qtest.c) into the tree, adds marked blocks to hw/misc/Kconfig,
# hw/misc/meson.build, hw/misc/trace-events and tests/qtest/meson.build,
# and applies qemu-model/patches/*.patch (fixes to QEMU's own devices).
# Idempotent: files are only rewritten when their content changes (so a
# second run touches nothing and ninja rebuilds nothing), and a changed
# source or trace-events replaces the old copy or block.
set -euo pipefail

die() {
	echo "apply.sh: error: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 QEMU_SRC_DIR"
qemu=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

[ -d "$qemu" ] || die "'$qemu' is not a directory"
for f in hw/misc/Kconfig hw/misc/meson.build hw/misc/trace-events \
	 tests/qtest/meson.build include/hw/pci/msix.h; do
	[ -f "$qemu/$f" ] || die "'$qemu' does not look like a QEMU source tree (no $f)"
done
# The device's sources, for hw/misc/ (their shared sacc.h goes to
# include/hw/misc/): the device, one concern a file, and its monitor.
sources=(sacc-pci.c sacc-regs.c sacc-engine.c sacc-exec.c sacc-copy.c
	sacc-dma.c sacc-irq.c sacc-doorbell.c sacc-monitor.c)
for f in "${sources[@]/#/$here/}" "$here/sacc.h" "$here/sacc.json" \
	 "$here/trace-events" \
	 "$repo/include/sacc_hw.h" "$repo/rings/sacc_ring.h" \
	 "$repo/include/sacc_hw_names.h" \
	 "$repo/hw/names.c"; do
	[ -f "$f" ] || die "missing $f"
done
qtests=$repo/tests/qtest
for f in sacc-qtest.c sacc-qtest.h vtd-access-test.c; do
	[ -f "$qtests/$f" ] || die "missing $qtests/$f"
done
grep -q 'qemu_bh_new_guarded' "$qemu/include/qemu/main-loop.h" ||
	die "this QEMU has no qemu_bh_new_guarded (need 7.2 with the re-entrancy fixes, e.g. Debian bookworm's)"

BEGIN='# BEGIN sacc (added by qemu-model/apply.sh, do not edit)'
END='# END sacc'
changed=0

# install_if_changed NEW DEST: replace DEST with NEW unless identical.
install_if_changed() {
	if cmp -s "$1" "$2"; then
		return
	fi
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2.sacc-tmp"
	mv "$2.sacc-tmp" "$2"
	echo "apply.sh: updated ${2#"$qemu"/}"
	changed=1
}

# put_block FILE CONTENT_FILE [ANCHOR]: make FILE contain exactly one marked
# block with CONTENT_FILE's text, right after the line equal to ANCHOR, or
# at the end of the file without an anchor.
put_block() {
	local file=$1 content=$2 anchor=${3-} tmp
	tmp=$(mktemp)
	awk -v b="$BEGIN" -v e="$END" '
		$0 == b { skip = 1; next }
		$0 == e && skip { skip = 0; next }
		!skip' "$file" >"$tmp.stripped"
	if [ -n "$anchor" ]; then
		grep -qxF -- "$anchor" "$tmp.stripped" ||
			die "cannot find the line '$anchor' in ${file#"$qemu"/}"
		awk -v a="$anchor" -v b="$BEGIN" -v e="$END" -v c="$content" '
			{ print }
			$0 == a && !done {
				print b
				while ((getline l < c) > 0)
					print l
				print e
				done = 1
			}' "$tmp.stripped" >"$tmp"
	else
		{
			cat "$tmp.stripped"
			# keep the block on its own lines
			[ -z "$(tail -c1 "$tmp.stripped")" ] || echo
			echo "$BEGIN"
			cat "$content"
			echo "$END"
		} >"$tmp"
	fi
	install_if_changed "$tmp" "$file"
	rm -f "$tmp" "$tmp.stripped"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for f in "${sources[@]}"; do
	install_if_changed "$here/$f" "$qemu/hw/misc/$f"
done
install_if_changed "$here/sacc.h" "$qemu/include/hw/misc/sacc.h"
install_if_changed "$here/sacc.json" "$qemu/qapi/sacc.json"
install_if_changed "$repo/include/sacc_hw.h" "$qemu/include/hw/misc/sacc_hw.h"
# The ring arithmetic the driver uses, header-only (sacc_ring_next() ...),
# beside sacc_hw.h, which it includes by its bare name.
install_if_changed "$repo/rings/sacc_ring.h" "$qemu/include/hw/misc/sacc_ring.h"
install_if_changed "$repo/include/sacc_hw_names.h" \
	"$qemu/include/hw/misc/sacc_hw_names.h"
# The one names table (hw/names.c), for the monitor's decoding; QEMU's
# files include osdep.h first.
{
	echo '#include "qemu/osdep.h"'
	sed 's|#include "sacc_hw_names.h"|#include "hw/misc/sacc_hw_names.h"|' \
		"$repo/hw/names.c"
} >"$work/sacc-names.c"
install_if_changed "$work/sacc-names.c" "$qemu/hw/misc/sacc-names.c"
for f in "$qtests"/*.c "$qtests"/*.h; do
	install_if_changed "$f" "$qemu/tests/qtest/${f##*/}"
done
# The one SACC qtest before they were split by subject: nothing builds it.
if [ -e "$qemu/tests/qtest/sacc-test.c" ]; then
	rm -f "$qemu/tests/qtest/sacc-test.c"
	echo "apply.sh: removed tests/qtest/sacc-test.c"
	changed=1
fi

cat >"$work/Kconfig" <<'EOF'
config SACC
    bool
    default y if PCI_DEVICES
    depends on PCI && MSI_NONBROKEN
EOF
put_block "$qemu/hw/misc/Kconfig" "$work/Kconfig"

{
	echo "softmmu_ss.add(when: 'CONFIG_SACC', if_true: files("
	printf "  '%s',\n" "${sources[@]}"
	echo "  'sacc-names.c'))"
} >"$work/meson"
put_block "$qemu/hw/misc/meson.build" "$work/meson"

put_block "$qemu/hw/misc/trace-events" "$here/trace-events"

# x86_64 only: the qtests drive the device on q35, and intel-iommu
# (vtd-access-test: patches/0002).  A binary per sacc-*-test.c, each
# with what they share (sacc-qtest.c): the block comes after the dict
# of the qtests' extra sources, so it can add to it.
sacc_qtests=$(cd "$qtests" && ls sacc-*-test.c | sed "s/\.c\$/',/; s/^/'/" | tr '\n' ' ')
cat >"$work/qtest" <<EOF
sacc_qtests = [${sacc_qtests%, }]
EOF
cat >>"$work/qtest" <<'EOF'
qtests_x86_64 += (config_all_devices.has_key('CONFIG_SACC') ? sacc_qtests : [])
foreach t : sacc_qtests
  qtests += {t: files('sacc-qtest.c')}
endforeach
qtests_x86_64 += (config_all_devices.has_key('CONFIG_VTD') ? ['vtd-access-test'] : [])
EOF
put_block "$qemu/tests/qtest/meson.build" "$work/qtest" 'qtest_executables = {}'

# Fixes to QEMU itself (patches/*.patch, each explains why). A copy of
# every applied patch is kept in the tree, so a changed patch is first
# reverted in its old form and then applied in its new one.
applied=$qemu/.sacc-patches
mkdir -p "$applied"
for old in "$applied"/*.patch; do
	[ -e "$old" ] && [ ! -e "$here/patches/${old##*/}" ] || continue
	patch -d "$qemu" -p1 -R -s -f <"$old" >/dev/null ||
		die "cannot revert ${old##*/} (removed from patches/); start from a fresh tree"
	rm -f "$old"
	echo "apply.sh: reverted ${old##*/}"
	changed=1
done
for p in "$here"/patches/*.patch; do
	[ -e "$p" ] || continue
	name=${p##*/}
	if [ -e "$applied/$name" ]; then
		cmp -s "$p" "$applied/$name" && continue
		patch -d "$qemu" -p1 -R -s -f <"$applied/$name" >/dev/null ||
			die "cannot revert the old $name; start from a fresh tree"
		rm -f "$applied/$name"
	fi
	patch -d "$qemu" -p1 -s -f --dry-run <"$p" >/dev/null ||
		die "patches/$name does not apply to this QEMU tree"
	patch -d "$qemu" -p1 -s -f <"$p" >/dev/null
	cp "$p" "$applied/$name"
	echo "apply.sh: applied $name"
	changed=1
done

if [ $changed -eq 0 ]; then
	echo "apply.sh: $qemu already up to date"
fi
