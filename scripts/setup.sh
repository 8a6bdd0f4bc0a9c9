#!/usr/bin/env bash
# Installs everything the tests need, from the package registries only: npm packages, the
# handler bundles, the Terraform toolchain (terraform and OpenTofu) with its offline provider mirror,
# Node 24 for the second CI pass, the Debian rootfs of the systemd test host, and kube-apiserver
# with etcd. Heavy parts are cached under /var/cache/cdktf-homelab.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npm run --silent bundle
bash scripts/setup-terraform.sh
bash scripts/setup-node.sh >/dev/null
bash scripts/setup-systemd-host.sh
bash scripts/setup-kube.sh
