#!/usr/bin/env bash
# Recomputes the tables of docs/guide/validation.md: for every shared trace
# with timestamps, its recorded span, the span predicted with LogGOPSim's
# default network, the network calibrated on the trace itself (capsim
# calibrate) and the span predicted with it; then, for the traces whose
# ranks started apart, the same predictions with every rank started at 0
# (--align-starts); then the out-of-sample cases.
# Needs jq and the traces in ../shared/traces. Usage: scripts/validation.sh [CAPSIM]
set -euo pipefail
cd "$(dirname "$0")/.."
capsim=${1:-}
if [ -z "$capsim" ]; then
	capsim=$(mktemp -d)/capsim
	go build -o "$capsim" ./cmd/capsim
fi
S=../shared/traces
ms() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e6 }'; }
err() { awk -v p="$1" -v r="$2" 'BEGIN { printf "%+.1f %%", (p / r - 1) * 100 }'; }

echo "| trace | recorded ms | start spread ms | default ms | error | calibrated net | calibrated ms | error |"
echo "|---|---:|---:|---:|---:|---|---:|---:|"
for t in otf2/pipit-pingpong otf2/pipit-pingpong-papi otf2/sstmacro-otf2test otf2/tracer-stencil4d-32 \
	otf2/tracer-stencil4d-64 dumpi/sstmacro-testtrace dumpi/sstmacro-testbgp dumpi/d2g-alltoall4 \
	liballprof/simple liballprof/barr4 liballprof/bcast3; do
	p=$S/$t
	read -r rec def < <("$capsim" replay "$p" --json | jq -r '"\(.recorded_ns) \(.predicted_ns)"')
	if cal=$("$capsim" calibrate "$p" --json 2>/dev/null); then
		net=$(jq -r .net <<<"$cal")
		spread=$(jq -r .fit.start_spread_ns <<<"$cal")
		pred=$("$capsim" replay "$p" --net "$net" --json | jq -r .predicted_ns)
		echo "| ${t#*/} | $(ms "$rec") | $(ms "$spread") | $(ms "$def") | $(err "$def" "$rec") | \`$net\` | $(ms "$pred") | $(err "$pred" "$rec") |"
	else
		echo "| ${t#*/} | $(ms "$rec") | — | $(ms "$def") | $(err "$def" "$rec") | — | — | — |"
	fi
done

echo
echo "| trace | start spread ms | recorded ms | default ms | error | aligned ms | error | calibrated ms | error | calibrated, aligned ms | error |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in otf2/sstmacro-otf2test dumpi/sstmacro-testtrace dumpi/sstmacro-testbgp dumpi/d2g-alltoall4 \
	otf2/tracer-stencil4d-32 otf2/tracer-stencil4d-64; do
	p=$S/$t
	net=$("$capsim" calibrate "$p" --json | jq -r .net)
	read -r rec spread def < <("$capsim" replay "$p" --json | jq -r '"\(.recorded_ns) \(.starts.recorded_spread_ns) \(.predicted_ns)"')
	adef=$("$capsim" replay "$p" --align-starts --json | jq -r .predicted_ns)
	cal=$("$capsim" replay "$p" --net "$net" --json | jq -r .predicted_ns)
	acal=$("$capsim" replay "$p" --net "$net" --align-starts --json | jq -r .predicted_ns)
	echo "| ${t#*/} | $(ms "$spread") | $(ms "$rec") | $(ms "$def") | $(err "$def" "$rec") | $(ms "$adef") | $(err "$adef" "$rec") | $(ms "$cal") | $(err "$cal" "$rec") | $(ms "$acal") | $(err "$acal" "$rec") |"
done

echo
echo "| calibrated on | predicts | recorded ms | calibrated net | predicted ms | error |"
echo "|---|---|---:|---|---:|---:|"
for pair in "pipit-pingpong-papi pipit-pingpong" "pipit-pingpong pipit-pingpong-papi" \
	"tracer-stencil4d-32 tracer-stencil4d-64" "tracer-stencil4d-64 tracer-stencil4d-32"; do
	set -- $pair
	net=$("$capsim" calibrate "$S/otf2/$1" --json | jq -r .net)
	read -r rec pred < <("$capsim" replay "$S/otf2/$2" --net "$net" --json | jq -r '"\(.recorded_ns) \(.predicted_ns)"')
	echo "| $1 | $2 | $(ms "$rec") | \`$net\` | $(ms "$pred") | $(err "$pred" "$rec") |"
done
