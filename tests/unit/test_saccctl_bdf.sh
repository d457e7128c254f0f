#!/bin/sh
# test_saccctl_bdf.sh SACCCTL - the commands that take a device's PCI
# address (inject, run, bench) refuse one that is not a SACC device bound
# to vfio-pci up front: a message on stderr, nothing on stdout, exit 2.
# Against a fake sysfs (SACC_SYSFS_ROOT), so it runs on any host.
set -u
saccctl=$1
root=$(mktemp -d /tmp/saccctl-bdf.XXXXXX)
trap 'rm -rf "$root"' EXIT
fails=0

dev() { # dev BDF VENDOR DEVICE [DRIVER]
	d=$root/devices/pci0000:00/$1
	mkdir -p "$d" "$root/bus/pci/devices"
	echo "$2" >"$d/vendor"
	echo "$3" >"$d/device"
	ln -s "../../../devices/pci0000:00/$1" "$root/bus/pci/devices/$1"
	if [ -n "${4:-}" ]; then
		mkdir -p "$root/bus/pci/drivers/$4"
		ln -s "../../../bus/pci/drivers/$4" "$d/driver"
	fi
}
dev 0000:00:00.0 0x8086 0x29c0
dev 0000:00:1f.2 0x8086 0x2922 ahci
dev 0000:01:00.0 0x1b36 0x1092
dev 0000:02:00.0 0x1b36 0x1092 xhci_hcd

expect() { # expect WHAT-ON-STDERR ARGS...: exit 2, that message, no stdout
	want=$1
	shift
	SACC_SYSFS_ROOT=$root "$saccctl" "$@" >"$root/out" 2>"$root/err"
	rc=$?
	if [ $rc != 2 ] || [ -s "$root/out" ] || ! grep -qF -- "$want" "$root/err"; then
		echo "FAIL: saccctl $*: exit $rc (want 2), stdout $(wc -c <"$root/out") bytes, stderr:"
		sed 's/^/  | /' "$root/err"
		echo "  (wanted on stderr: $want)"
		fails=$((fails + 1))
	else
		echo "ok: saccctl $*: $(head -n 1 "$root/err")"
	fi
}

expect "saccctl inject: 0000:00:00.0 is not a SACC device (PCI 8086:29c0, SACC is 1b36:1092); 'saccctl list' shows the SACC devices" \
	inject --all 0000:00:00.0
expect "saccctl inject: 0000:00:1f.2 is not a SACC device" inject unmapped-dst-write 00:1f.2
expect "saccctl inject: no PCI device 0000:03:00.0" inject --all 0000:03:00.0
expect "saccctl inject: SACC device 0000:01:00.0 is bound to no driver, not to vfio-pci: run 'saccctl bind 0000:01:00.0' first" \
	inject --all 01:00.0
expect "saccctl inject: SACC device 0000:02:00.0 is bound to xhci_hcd, not to vfio-pci" \
	inject --json --all 0000:02:00.0
expect "saccctl run: 0000:00:00.0 is not a SACC device" run 0000:00:00.0
expect "saccctl bench: SACC device 0000:01:00.0 is bound to no driver" bench 0000:01:00.0
expect "neither a scenario" inject --all nonsense
[ $fails = 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
