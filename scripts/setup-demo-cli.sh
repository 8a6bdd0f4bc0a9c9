#!/usr/bin/env bash
# The cdktf CLI the demo synthesizes with (scripts/demo.sh: `cdktf synth`), installed once per its lock file, Node and
# npm into the cache, and its folder printed. It is no dependency of the package: as a devDependency it was 370 of the
# 940 packages every install from git unpacks (npm installs a git dependency's devDependencies to run its prepare),
# for the demo alone (measured: 58 against 37 CPU-s for the README's git install, 2026-12-07). An install is made in a
# private temp folder beside its destination and renamed into place whole, so a killed one is never used.
set -euo pipefail
cd "$(dirname "$0")/demo-cli"
# shellcheck source=scripts/private-cache.sh
source ../private-cache.sh
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)

CACHE=${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/demo-cli
KEY=$({ cat package.json package-lock.json && node --version && npm --version && uname -m; } | sha256sum | cut -c1-12)
DIR=$CACHE/$KEY
log() { echo "[setup-demo-cli] $*" >&2; }

mkdir -p "$CACHE"
private_cache_dir "${CACHE%/*}"
private_cache_dir "$CACHE"
exec 9>"$CACHE/.lock"
flock 9 # one installer at a time; a second caller waits, then finds the finished install
if [[ ! -x $DIR/node_modules/.bin/cdktf ]]; then
  t0=$SECONDS
  work=$(mktemp -d "$CACHE/.$KEY.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp package.json package-lock.json "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >&2)
  rm -rf "$DIR" && mv "$work" "$DIR"
  prune_installs "$CACHE" 3
  log "cdktf-cli installed in $DIR ($((SECONDS - t0))s)"
fi
echo "$DIR"
