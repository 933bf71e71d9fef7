#!/usr/bin/env bash
# Re-records capsim's SimGrid time-independent (TI) test traces and measures
# SimGrid's own replay of them. Needs Debian's simgrid and libsimgrid-dev
# (smpicc, smpirun). Run from anywhere:
#
#   traces/simgrid/testdata/record.sh            # record ti/*, then replay
#   traces/simgrid/testdata/record.sh replay     # only replay the committed traces
#   traces/simgrid/testdata/record.sh platforms  # replay them on platforms/*.xml
#   traces/simgrid/testdata/record.sh pair       # record ti/alltoall, replay it with alltoall pair
#
# Recording: each program in programs/ is compiled with smpicc and run on 16
# ranks of cluster16.xml with `smpirun -trace-ti`. The programs charge their
# work with smpi_execute_flops, so smpi/simulate-computation is off and the
# trace does not depend on this machine's speed. Each trace is stored as SimGrid
# writes it (an index file listing one file per rank), with the rank files
# renamed from SimGrid's timestamped names to ti/NAME/rank-N.txt, and a first
# line "# smpi/host-speed: 1Gf" that tells capsim the speed the flops assume.
# ../../../examples/traces/ti.txt is the master-worker trace in SimGrid's
# single-file form (tracing/smpi/format/ti-one-file).
#
# Replay: `smpirun -replay` (SimGrid's smpireplaymain, which calls
# smpi_replay_run) on the same platform with network/model:CM02 (smpirun
# itself forces network/model:SMPI, so the command line sets it back),
# network/optim:Full (SG_OPTIM: SimGrid re-solves its max-min sharing at
# every change; its default, Lazy, re-rates only the flows it marks as
# touched and can leave a link over its capacity, see
# docs/design/simgrid-agreement.md; SG_OPTIM=Lazy replays with it) and the
# collective algorithms capsim's lowering uses (see COLLS below); prints
# "name makespan_seconds" lines, the numbers in makespans.txt.
#
# Platforms: the same replay of every trace on each platform of platforms/
# (a crossbar and a one-switch fat tree, at 10 and 100 Gb/s); prints
# "name@platform makespan_seconds" lines with SimGrid's date to the
# nanosecond, the numbers in makespans-platforms.txt.
#
# Pair: programs/alltoall.c recorded as the others, then replayed on each
# platform with SimGrid's alltoall "pair" (rank r exchanges with r XOR i in
# step i; capsim's pairwise-xor) in place of ring, with network/optim:Full
# and with SimGrid's default Lazy; prints "alltoall@platform
# makespan_seconds" and "alltoall-lazy@platform makespan_seconds", the
# numbers in makespans-pair.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
np=16
plat="$here/cluster16.xml"
optim=${SG_OPTIM:-Full}
hosts="$here/hostfile16"
# SimGrid's algorithm for each collective, paired with capsim's default lowering.
COLLS=(--cfg=smpi/barrier:ompi_bruck --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial
  --cfg=smpi/allreduce:rdb --cfg=smpi/alltoall:ring --cfg=smpi/alltoallv:ring
  --cfg=smpi/allgather:NTSLR --cfg=smpi/gather:ompi_basic_linear --cfg=smpi/scatter:ompi_basic_linear
  --cfg=smpi/reduce_scatter:default)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

record() { # record NAME: compile programs/NAME.c and trace it into ti/NAME
  local name=$1 out="$here/ti/$1"
  smpicc -O2 -o "$tmp/$name" "$here/programs/$name.c" -lm
  (cd "$tmp" && smpirun -np $np -platform "$plat" -hostfile "$hosts" -trace-ti \
    --cfg=tracing/filename:"$name.ti" --cfg=smpi/simulate-computation:no "./$name" >"$name.out" 2>"$name.err") ||
    { cat "$tmp/$name.err" >&2; return 1; }
  rm -rf "$out" && mkdir -p "$out"
  : >"$here/ti/$name.txt"
  local r=0
  while read -r f; do
    { echo "# smpi/host-speed: 1Gf"; cat "$tmp/$f"; } >"$out/rank-$r.txt"
    echo "$name/rank-$r.txt" >>"$here/ti/$name.txt"
    r=$((r + 1))
  done <"$tmp/$name.ti"
  echo "recorded $name: $(cat "$tmp/$name.out")" >&2
}

record_one_file() { # the master-worker trace in SimGrid's single-file form
  (cd "$tmp" && smpirun -np $np -platform "$plat" -hostfile "$hosts" -trace-ti \
    --cfg=tracing/filename:one.ti --cfg=tracing/smpi/format/ti-one-file:yes \
    --cfg=smpi/simulate-computation:no ./master >/dev/null 2>"one.err") || { cat "$tmp/one.err" >&2; return 1; }
  mkdir -p "$repo/examples/traces"
  { echo "# SimGrid time-independent trace (smpirun -trace-ti, single file) of capsim's master-worker"
    echo "# test program on 16 ranks; see traces/simgrid/testdata/record.sh and docs/reference/trace-formats.md."
    echo "# smpi/host-speed: 1Gf"
    cat "$tmp/$(head -1 "$tmp/one.ti")"; } >"$repo/examples/traces/ti.txt"
}

replay() { # replay NAME [PLATFORM [CFG]]: SimGrid's makespan of ti/NAME.txt in seconds
  local name=$1 src="$here/ti/$1" dst="$tmp/replay/$1" platform=${2:-$plat} extra=${3:-}
  # SimGrid 3.32 writes MPI_ANY_SOURCE as -333 (MPI_UNDEFINED) in recv
  # lines, which its own replay then never matches; give it -555
  # (MPI_ANY_SOURCE) so it can replay the trace it wrote.
  mkdir -p "$dst"
  for f in "$src"/rank-*.txt; do
    sed -E 's/^([0-9]+) (recv|irecv) -333 /\1 \2 -555 /' "$f" >"$dst/$(basename "$f")"
  done
  sed "s|^$name/|$dst/|" "$here/ti/$name.txt" >"$dst.txt"
  if [ -z "${2:-}" ]; then
    smpirun -np $np -platform "$platform" -hostfile "$hosts" -replay "$dst.txt" \
      --cfg=network/model:CM02 "${COLLS[@]}" --cfg=network/optim:$optim 2>&1 |
      sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p'
  else # the date to the nanosecond
    smpirun -np $np -platform "$platform" -hostfile "$hosts" -replay "$dst.txt" \
      --cfg=network/model:CM02 "${COLLS[@]}" --cfg=network/optim:$optim ${extra:+"$extra"} '--log=smpi_replay.fmt:[%.9d]%e%m%n' 2>&1 |
      sed -n 's/^\[\([0-9.]*\)\] Simulation time.*/\1/p' | tail -1
  fi
}

names=(jacobi cg fft master mg sort wavefront)
if [ "${1:-}" = pair ]; then
  record alltoall
  for p in "$here"/platforms/*.xml; do
    echo "alltoall@$(basename "$p" .xml) $(replay alltoall "$p" --cfg=smpi/alltoall:pair)"
    echo "alltoall-lazy@$(basename "$p" .xml) $(optim=Lazy replay alltoall "$p" --cfg=smpi/alltoall:pair)"
  done
  exit 0
fi
if [ "${1:-}" = platforms ]; then
  for p in "$here"/platforms/*.xml; do
    for n in "${names[@]}"; do echo "$n@$(basename "$p" .xml) $(replay "$n" "$p")"; done
  done
  exit 0
fi
if [ "${1:-}" != replay ]; then
  for n in "${names[@]}"; do record "$n"; done
  cp "$here/programs/master.c" "$tmp/" && smpicc -O2 -o "$tmp/master" "$tmp/master.c" -lm && record_one_file
fi
for n in "${names[@]}"; do echo "$n $(replay "$n")"; done
