#!/usr/bin/env bash
# Installs everything the tests need, from the package registries only: npm packages (`npm ci` once per lock file,
# then copied from its cache: scripts/setup-node-modules.sh), the handler bundles, the Terraform toolchain (terraform
# and OpenTofu) with its offline provider mirror, the Node LTS lines of scripts/node-lines (24 runs the second CI
# pass; 22 and 26 the node-lines e2e), the Debian rootfs of the systemd test host, kube-apiserver with etcd, and
# Debian's PostgreSQL server (the pg backend e2e starts a cluster of its own).
# Heavy parts are cached under /var/cache/cdktf-homelab.
#
# After the bundles, three chains run side by side, so a cold machine's downloads (debootstrap, apt, npm) overlap the
# Go builds instead of waiting for them: the Terraform toolchain; the Node lines; the systemd host, PostgreSQL, then
# kube-apiserver. The last three share one chain because each may call apt-get, whose locks a second apt-get fails on
# rather than waits for. Each chain's output is printed whole when it ends, and setup fails if any chain did.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-node-modules.sh
npm run --silent bundle

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
node_lines() { while read -r version; do bash scripts/setup-node.sh "$version" >/dev/null; done <scripts/node-lines; }
hosts() { bash scripts/setup-systemd-host.sh && bash scripts/setup-postgres.sh && bash scripts/setup-kube.sh; }

declare -A chains=()
start() { # start <name> <command...>: one chain in the background, its output to its own log
  local name=$1
  shift
  "$@" >"$logs/$name.log" 2>&1 &
  chains[$!]=$name
}
start terraform bash scripts/setup-terraform.sh
start node-lines node_lines
start hosts hosts

failed=()
for pid in "${!chains[@]}"; do
  status=0
  wait "$pid" || status=$?
  name=${chains[$pid]}
  cat "$logs/$name.log" >&2
  if [[ $status -ne 0 ]]; then failed+=("$name (exit $status)"); fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "[setup] failed: ${failed[*]}; its output is above" >&2
  exit 1
fi
