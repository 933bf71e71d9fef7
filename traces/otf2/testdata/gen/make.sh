#!/bin/sh
# Rebuilds the OTF2 test archives in ../dialects from gen.c with the OTF2
# writer library (Debian: apt-get install libotf2-dev; otf2-config or
# pkg-config otf2 must find it). Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../dialects"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v otf2-config >/dev/null 2>&1; then
	flags="$(otf2-config --cflags) $(otf2-config --ldflags) $(otf2-config --libs)"
else
	flags=$(pkg-config --cflags --libs otf2)
fi
# shellcheck disable=SC2086
cc -std=gnu11 -Wall -Werror -O1 -o "$tmp/gen" "$here/gen.c" $flags
for name in hybrid epoch-us unwind; do
	rm -rf "${out:?}/$name"
	"$tmp/gen" "$name" "$out/$name"
	# The archive's creator field is fixed; nothing else depends on the
	# host, so reruns give the same bytes.
done
