#!/bin/sh
# examples/build-installed.sh - prove an installed libsacc is enough to
# build a program: `meson install` into a scratch DESTDIR, then build
# examples/hello.c with nothing but what was installed there, found
# through pkg-config --static, and link it statically (the guest has no
# libc).  Nothing from the source tree is on the include or library path.
#
# usage: examples/build-installed.sh [BUILD_DIR [OUTPUT]]
#   BUILD_DIR  a configured meson build directory (default: ./build)
#   OUTPUT     the hello binary to write (default: BUILD_DIR/hello)
# Then run it in the guest:
#   ci/vm --add OUTPUT -- /opt/add/hello 0000:01:00.0
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$build/hello}
cc=${CC:-cc}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --destdir "$stage" --quiet >/dev/null

pc=$(find "$stage" -name libsacc.pc)
[ -n "$pc" ] || { echo "error: meson install put no libsacc.pc under $stage" >&2; exit 1; }
find "$stage" -path '*/bin/saccctl' | grep -q . ||
	{ echo "error: meson install put no saccctl under $stage" >&2; exit 1; }

# libsacc.pc names the real prefix (/usr/local/...); the sysroot makes
# pkg-config point -I and -L into the staged copy instead.
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$stage"
flags=$(pkg-config --static --cflags --libs libsacc)
echo "cc examples/hello.c $flags -static" | sed "s|$stage|\$DESTDIR|g"
# shellcheck disable=SC2086 # $flags is a list of words
$cc -Wall -Werror -O2 -o "$out" "$root/examples/hello.c" $flags -static
echo "$out"
