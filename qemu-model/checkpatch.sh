#!/bin/bash
# SPDX-License-Identifier: MIT
#
# qemu-model/checkpatch.sh [FILE...] - QEMU's scripts/checkpatch.pl on
# the device model and its qtests (default: qemu-model/*.c, *.h and
# tests/qtest/*.[ch]).
#
# checkpatch.pl comes from the QEMU source that ci/setup unpacks under
# $SACC_CACHE (default /var/cache/sacc): the pristine tree
# src/qemu-<ver>/qemu-*/, else the patched qemu-<ver>/tree.  Run ci/setup
# first if neither is there.
#
# Each file is checked under the path apply.sh gives it in QEMU's tree
# (sacc-pci.c as hw/misc/sacc-pci.c, sacc.h as include/hw/misc/sacc.h,
# tests/qtest/* as tests/qtest/*),
# because some rules depend on it: under tests/, g_assert_cmp*() and
# friends are allowed (the qtest idiom); elsewhere they are errors.
#
# Exits 1 if checkpatch.pl reports any error (warnings are printed but
# allowed), 2 on a usage or setup problem.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../ci/lib.sh
. "$here/../ci/lib.sh"

find_checkpatch() {
	local ver vkey d
	ver=$(qemu_src_version)
	if [ -n "$ver" ]; then
		vkey=${ver//[:~]/_}
		for d in "$SACC_CACHE/src/qemu-$vkey"/qemu-*/ \
			"$SACC_CACHE/qemu-$vkey/tree/"; do
			if [ -f "$d/scripts/checkpatch.pl" ]; then
				echo "${d%/}/scripts/checkpatch.pl"
				return 0
			fi
		done
	fi
	# apt-cache may not know the version (e.g. no deb-src entries yet):
	# take the newest unpacked tree there is.
	while IFS= read -r d; do
		if [ -f "$d/scripts/checkpatch.pl" ]; then
			echo "${d%/}/scripts/checkpatch.pl"
			return 0
		fi
	done < <(printf '%s\n' "$SACC_CACHE"/src/qemu-*/qemu-*/ \
		"$SACC_CACHE"/qemu-*/tree/ | sort -V -r)
	return 1
}

# Where apply.sh puts a qemu-model/ file in QEMU's tree.
qemu_path() {
	case "${1##*/}" in
	*-test.c | sacc-qtest.[ch]) echo "tests/qtest/${1##*/}" ;;
	*.h) echo "include/hw/misc/${1##*/}" ;;
	*) echo "hw/misc/${1##*/}" ;;
	esac
}

checkpatch=$(find_checkpatch) || {
	echo "checkpatch.sh: no QEMU source tree under $SACC_CACHE; run ci/setup first" >&2
	exit 2
}

if [ $# -eq 0 ]; then
	set -- "$here"/*.c "$here"/*.h "$(dirname "$here")"/tests/qtest/*.[ch]
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "checkpatch.sh: no such file: $f" >&2
		exit 2
	fi
	rel=$(qemu_path "$f")
	mkdir -p "$work/$(dirname "$rel")"
	cp "$f" "$work/$rel"
	echo "== $f (as $rel)"
	# checkpatch.pl exits 1 on errors, 0 on warnings only.
	rc=0
	(cd "$work" && perl "$checkpatch" --no-tree -f "$rel") >"$work/out" 2>&1 ||
		rc=$?
	sed -e "s|$rel|$f|g" "$work/out"
	if [ $rc -ne 0 ] || grep -q '^ERROR:' "$work/out"; then
		failed=1
	fi
done

if [ $failed -ne 0 ]; then
	echo "checkpatch.sh: QEMU style errors (checkpatch: $checkpatch)" >&2
	exit 1
fi
echo "checkpatch.sh: no errors"
