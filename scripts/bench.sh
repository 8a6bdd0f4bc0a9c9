#!/usr/bin/env bash
# npm run bench: bundles the handlers and benchmarks, then runs the benchmarks one after another.
# npm run bench:kube (bench.sh kube): the Kubernetes read benchmark, bundled on its own (its packages stay external).
# bench.sh fleet: the fleet bench alone (many hosts and a cluster in one stack; sizes from BENCH_FLEET_*).
set -euo pipefail
cd "$(dirname "$0")/.."
PATH=$PWD/node_modules/.bin:$PATH # as under npm, so the script also runs on its own
[[ ${1:-kube} == kube || $1 == fleet ]] || { echo "usage: scripts/bench.sh [kube|fleet]" >&2; exit 2; }
node scripts/bundle-handlers.js
case ${1:-} in
  '')
    for bench in handler-startup systemd-unit network-apply plan-scale apply-scale destroy-hook systemd-vs-ansible fleet; do
      node "build/bench/$bench.js"
    done
    ;;
  fleet) node build/bench/fleet.js ;;
  kube)
    esbuild bench/kube-read.ts --bundle --platform=node --packages=external \
      --outfile=build/bench/kube-read.js --log-level=warning
    node build/bench/kube-read.js
    ;;
esac
