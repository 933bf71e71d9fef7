#!/usr/bin/env bash
# Installs what capsim needs to build and test, if it is missing:
# the COIN-OR CLP library (LP solver, through cgo and a small C++ shim, so
# gcc and g++), the OTF2 library (Score-P traces, through cgo) with
# otf2-print (the OTF2 tests compare against it), pkg-config, the arrow-js
# package used by the
# interoperability test, and in CI SimGrid and GLPK's glpsol. Safe to run
# again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
if ! pkg-config --exists clp 2>/dev/null; then need_apt+=(coinor-libclp-dev); fi
if ! pkg-config --exists otf2 2>/dev/null; then need_apt+=(libopen-trace-format2-dev); fi
command -v otf2-print >/dev/null 2>&1 || need_apt+=(otf2-tools)
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++) # optimize/clp's C++ shim
# SimGrid (smpicc, smpirun) for the live comparison with SimGrid's replay in
# traces/simgrid; its tests skip without it, so only CI installs it.
if [ -n "${CI:-}" ] && ! command -v smpirun >/dev/null 2>&1; then need_apt+=(simgrid libsimgrid-dev); fi
# GLPK's glpsol, the independent LP solver the bound is checked against
# (TestGlpsolAgrees in optimize/bound and scenarios); the tests skip
# without it, so only CI installs it.
if [ -n "${CI:-}" ] && ! command -v glpsol >/dev/null 2>&1; then need_apt+=(glpk-utils); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "capsim: installing ${need_apt[*]} (apt-get)" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# arrow-js and nodejs-polars for the interoperability tests (only where node
# and npm exist; nodejs-polars' native package is for linux x64).
for js in traces/arrowtrace/testdata/js traces/importer/testdata/js; do
  if [ -f "$js/package-lock.json" ] && command -v npm >/dev/null 2>&1; then
    if [ ! -d "$js/node_modules" ] || [ "$js/package-lock.json" -nt "$js/node_modules" ]; then
      echo "capsim: installing the npm packages of $js for the interoperability tests (npm ci)" >&2
      # npm ci refuses nodejs-polars' lock file (it leaves out the native
      # packages for other platforms), so fall back to npm install.
      (cd "$js" && { npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm install --silent --no-audit --no-fund >/dev/null; })
    fi
  fi
done
