#!/usr/bin/env bash
# Debian's PostgreSQL server for the pg backend e2e (test/e2e/pg-backend.test.ts starts a throwaway cluster of its
# own; the package's default cluster is not used). Idempotent: a machine that has it installs nothing.
set -euo pipefail
if compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
  echo "[setup-postgres] $(ls /usr/lib/postgresql | sort -n | tail -1) already installed (skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends postgresql >/dev/null
