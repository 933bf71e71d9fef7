#!/usr/bin/env bash
# Measures how evenly `capsim sweep --shard K/4` shares out the sweeps of
# docs/reference/guarantees.md (shard balance): the 372-point shape (the
# default scenario at iterations 10-80 × balance 0.25-1), stencil32,
# gpu-node and the default scenario. Each shard runs as its own process
# with one worker, one after another; its CPU time (user + sys, from
# /usr/bin/time) is the figure, as wall times on a shared machine vary
# more between runs of one shard than between shards. With several
# binaries the rounds alternate them, so that they see the same load.
# Prints per sweep and binary the mean CPU seconds of each shard over the
# rounds and their max/min.
# Usage: scripts/shard-balance.sh [-r ROUNDS] [CAPSIM...]   (default: 4 rounds, capsim built from this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=4
if [ "${1:-}" = "-r" ]; then
	rounds=$2
	shift 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	go build -o "$tmp/capsim" ./cmd/capsim
	bins=("$tmp/capsim")
fi
{
	go run ./cmd/capsim scenario default
	printf '\n[sweep.params]\niterations = [10, 20, 40, 80]\nbalance = [0.25, 0.5, 1.0]\n'
} >"$tmp/shape.toml"
declare -A sweep=([shape]="$tmp/shape.toml" [stencil32]=examples/bound/stencil32.toml
	[gpu-node]=examples/scenarios/gpu-node.toml [default]="")
for r in $(seq "$rounds"); do
	for b in "${!bins[@]}"; do
		for name in shape stencil32 gpu-node default; do
			for k in 0 1 2 3; do
				rm -rf "$tmp/out"
				/usr/bin/time -o "$tmp/time" -f "%U %S" "${bins[$b]}" sweep ${sweep[$name]} -o "$tmp/out" \
					--workers 1 --shard "$k/4" --progress never >/dev/null 2>&1
				read -r user sys <"$tmp/time"
				echo "$name $b $k $user $sys"
			done
		done
	done
done | awk -v bins="${bins[*]}" '
	{ cpu[$1 " " $2, $3] += $4 + $5; n[$1 " " $2, $3]++; keys[$1 " " $2] = 1 }
	END {
		split(bins, name, " ")
		for (key in keys) {
			split(key, f, " ")
			lo = hi = -1; line = ""
			for (k = 0; k < 4; k++) {
				m = cpu[key, k] / n[key, k]
				line = line sprintf(" %.2f", m)
				if (lo < 0 || m < lo) lo = m
				if (m > hi) hi = m
			}
			printf "%-10s %d:%s  CPU s per shard:%s  max/min %.2f\n", f[1], f[2], name[f[2] + 1], line, hi / lo
		}
	}' | sort
