#!/bin/bash
# tests/libfuzzer/run.sh [--seconds N] [--build DIR] [TARGET...]
#
# Builds SACC's libFuzzer targets (clang-14, -Dfuzzers=true: libFuzzer +
# ASan + UBSan) in DIR (default build-fuzz beside the sources) and runs
# each for N seconds (default 20), one after the other, from the seed
# corpus in tests/libfuzzer/corpus/TARGET; what a run finds is kept in
# DIR/fuzz-corpus/TARGET for the next.  Exits 1 on any crash, leak,
# sanitizer report, timeout or oracle failure, naming the artifact and
# the command that reproduces it.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
all=(fuzz_kmsg_line fuzz_trace_line fuzz_journal_line fuzz_faultlog fuzz_iommu_info)
secs=20 dir=$root/build-fuzz targets=()

usage() {
	echo "usage: tests/libfuzzer/run.sh [--seconds N] [--build DIR] [TARGET...]"
	echo "targets: ${all[*]}"
}
die() { echo "libfuzzer/run.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--seconds) secs=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--seconds=*) secs=${1#*=}; shift ;;
	--build) dir=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--build=*) dir=${1#*=}; shift ;;
	-*) usage >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "libfuzzer/run.sh: --seconds wants a positive number" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "libfuzzer/run.sh: unknown target '$t'" >&2; usage >&2; exit 2; }
done

cc=${CC:-clang-14}
command -v "$cc" >/dev/null ||
	die "$cc not found: apt-get install clang-14 libclang-rt-14-dev (or set CC to a clang)."
if [ ! -e "$dir/build.ninja" ]; then
	out=$(CC=$cc meson setup "$dir" "$root" -Dfuzzers=true 2>&1) || {
		echo "$out" >&2
		die "meson setup $dir failed (output above)."
	}
fi
# shellcheck disable=SC2046 # one target per word
ninja -C "$dir" $(printf 'tests/libfuzzer/%s ' "${targets[@]}") \
	>"$dir/ninja-fuzz.log" 2>&1 || {
	tail -n 30 "$dir/ninja-fuzz.log" >&2
	die "building the fuzz targets failed (full log: $dir/ninja-fuzz.log)."
}

export ASAN_OPTIONS=detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
failed=()
for t in "${targets[@]}"; do
	bin=$dir/tests/libfuzzer/$t
	work=$dir/fuzz-corpus/$t
	art=$dir/fuzz-artifacts/$t/
	log=$dir/fuzz-logs/$t.log
	mkdir -p "$work" "$art" "$(dirname "$log")"
	dict=()
	if [ "$t" = fuzz_faultlog ]; then
		cat "$here"/fuzz_{kmsg,trace,journal}_line.dict >"$dir/fuzz_faultlog.dict"
		dict=(-dict="$dir/fuzz_faultlog.dict")
	elif [ -e "$here/$t.dict" ]; then
		dict=(-dict="$here/$t.dict")
	fi
	"$bin" "$work" "$here/corpus/$t" "${dict[@]}" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$art" \
		-print_final_stats=1 >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -aEo 'cov: [0-9]+' "$log" | tail -n 1)
	if [ $rc = 0 ]; then
		printf '    ok      %-18s %3ss  %s execs, %s\n' "$t" "$secs" "${execs:-?}" "${cov:-cov: ?}"
		continue
	fi
	failed+=("$t")
	a=$(grep -aEo 'Test unit written to [^ ]+' "$log" | tail -n 1 | sed 's/.* //')
	[ -n "$a" ] || a=$(find "$art" -type f -newer "$bin" | head -n 1)
	printf '    FAILED  %-18s exit %s\n' "$t" "$rc" >&2
	grep -aE -m 8 'ERROR:|runtime error:|oracle failed|SUMMARY:|deadly signal|timeout' "$log" |
		sed 's/^/      | /' >&2
	echo "      artifact:  ${a:-none found (log: $log)}" >&2
	echo "      reproduce: $bin ${a:-ARTIFACT}" >&2
	echo "      log:       $log" >&2
done
[ ${#failed[@]} = 0 ] || die "${#failed[@]} target(s) failed: ${failed[*]}"
echo "libfuzzer/run.sh: ${#targets[@]} target(s), ${secs}s each, no findings"
