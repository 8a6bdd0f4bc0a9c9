#!/usr/bin/env bash
# Installs everything the tests need, from the package registries only: npm packages (`npm ci` once per lock file,
# then copied from its cache: scripts/setup-node-modules.sh), the handler bundles, the Terraform toolchain (terraform
# and OpenTofu) with its offline provider mirror, the Node LTS lines of scripts/node-lines (24 runs the second CI
# pass; 22 and 26 the node-lines e2e), the Debian rootfs of the systemd test host, kube-apiserver with etcd, and
# Debian's PostgreSQL server (the pg backend e2e starts a cluster of its own).
# Heavy parts are cached under /var/cache/cdktf-homelab.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-node-modules.sh
npm run --silent bundle
bash scripts/setup-terraform.sh
while read -r version; do bash scripts/setup-node.sh "$version" >/dev/null; done <scripts/node-lines
bash scripts/setup-systemd-host.sh
bash scripts/setup-kube.sh
bash scripts/setup-postgres.sh
