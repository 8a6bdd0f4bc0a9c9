#!/usr/bin/env bash
# node_modules for this checkout: `npm ci` once per package.json + package-lock.json + Node + npm, then a copy of that
# install from the cache. Every fresh clone otherwise spends setup's longest step unpacking the same 783 packages
# (`npm ci`: 60 s of CI's serial setup on a quiet machine, 144 s under load; the copy: about 15 s). A changed lock file,
# Node or npm misses the cache and runs `npm ci` as before. A copy, not hard links: a write into the checkout's
# node_modules can never reach the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/private-cache.sh
source scripts/private-cache.sh
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)

CACHE=${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/node-modules
# What npm ci reads to build node_modules: the lock file and package.json's dependency fields (a changed description
# or script does not miss the cache; a dependency the lock lacks still does, and npm ci then fails as it should).
manifest=$(node -e '
  const m = require("./package.json");
  const fields = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "peerDependenciesMeta",
    "overrides", "bundleDependencies", "workspaces"];
  console.log(JSON.stringify(fields.map((field) => [field, m[field]])));')
KEY=$({ echo "$manifest" && cat package-lock.json && node --version && npm --version && uname -m; } | sha256sum | cut -c1-12)
DIR=$CACHE/$KEY
KEEP=3 # installs kept, newest first: a branch with other dependencies does not evict main's
log() { echo "[setup-node-modules] $*" >&2; }

mkdir -p "$CACHE"
private_cache_dir "${CACHE%/*}"
private_cache_dir "$CACHE"
exec 9>"$CACHE/.lock"
t0=$SECONDS
flock -s 9 # readers copy side by side; a writer below waits for them
if [[ -f $DIR/complete ]]; then
  rm -rf node_modules
  cp -a "$DIR/node_modules" node_modules
  log "node_modules copied from $DIR ($((SECONDS - t0))s)"
  exit 0
fi
flock -u 9
npm ci --no-audit --no-fund
flock 9
if [[ ! -f $DIR/complete ]]; then
  work=$(mktemp -d "$CACHE/.$KEY.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp -a node_modules "$work/node_modules"
  touch "$work/complete"
  rm -rf "$DIR" && mv "$work" "$DIR"
  prune_installs "$CACHE" "$KEEP"
fi
log "npm ci, cached in $DIR ($((SECONDS - t0))s)"
