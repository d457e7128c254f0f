#!/bin/bash
# tests/run-sanitized.sh [BUILD_DIR] - the host unit tests once under
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer.
#
# BUILD_DIR (default build-san beside the sources) is configured if it
# is not yet, with -Db_sanitize=address,undefined -Db_lundef=false;
# meson.build then links the executables dynamically (ASan cannot link
# -static) and compiles with -fno-sanitize-recover=all, so UBSan aborts
# on its first report.  Only the unit test executables are built (ccache
# is used when installed).  Exits non-zero if a test fails or any
# sanitizer report appears in the test log.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
-h | --help)
	echo "usage: tests/run-sanitized.sh [BUILD_DIR]   (default $root/build-san)"
	exit 0 ;;
esac
dir=${1:-$root/build-san}
san=address,undefined

die() { echo "run-sanitized: $*" >&2; exit 1; }

if [ ! -e "$dir/build.ninja" ]; then
	out=$(meson setup "$dir" "$root" -Db_sanitize=$san -Db_lundef=false 2>&1) || {
		echo "$out" >&2
		die "meson setup $dir failed (output above)."
	}
fi
opts=$(meson introspect "$dir" --buildoptions) ||
	die "$dir is not a meson build directory; remove it and run again."
have=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["b_sanitize"], o["b_lundef"])' <<<"$opts")
if [ "$have" != "$san False" ]; then
	meson configure "$dir" -Db_sanitize=$san -Db_lundef=false >/dev/null ||
		die "could not reconfigure $dir for the sanitizers."
fi

# Reconfigure first if meson.build changed, so the list below is current
# (introspection reads what the last configure wrote).
ninja -C "$dir" build.ninja >"$dir/ninja-san.log" 2>&1 || {
	tail -n 30 "$dir/ninja-san.log" >&2
	die "regenerating $dir failed (full log: $dir/ninja-san.log)."
}

# The unit tests' executables (and the built programs a test script is
# given, such as saccctl), and nothing else.
targets=$(meson introspect "$dir" --tests | python3 -c 'import json, os, sys
d = os.path.abspath(sys.argv[1])
out = set()
for t in json.load(sys.stdin):
    if "sacc:unit" not in t["suite"]:
        continue
    for w in t["cmd"]:
        p = w if os.path.isabs(w) else os.path.join(d, w)
        if p.startswith(d + os.sep) and not w.startswith("-"):
            out.add(os.path.relpath(p, d))
print("\n".join(sorted(out)))' "$dir") ||
	die "could not list the unit tests of $dir."
# shellcheck disable=SC2086 # one target per word
ninja -C "$dir" $targets >"$dir/ninja-san.log" 2>&1 || {
	tail -n 30 "$dir/ninja-san.log" >&2
	die "building the unit tests failed (full log: $dir/ninja-san.log)."
}

export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
# Instrumented code is several times slower (and the threaded ring test
# shares two cores with whatever else runs): stretch Check's per-test
# timeouts and meson's alike.
mult=${SACC_SAN_TIMEOUT_MULTIPLIER:-5}
export CK_TIMEOUT_MULTIPLIER=$mult
rc=0
meson test -C "$dir" --suite unit --no-rebuild --print-errorlogs \
	--timeout-multiplier "$mult" || rc=$?

# Belt and braces: a report in a process whose exit status nobody checks.
log=$dir/meson-logs/testlog.txt
if grep -aEq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
	echo "run-sanitized: sanitizer reports in $log:" >&2
	grep -aE -A3 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" |
		head -n 40 >&2
	rc=1
fi
[ $rc = 0 ] && echo "run-sanitized: unit tests clean under ASan+UBSan ($dir)"
exit $rc
