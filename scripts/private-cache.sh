# shellcheck shell=bash
# Sourced by the setup scripts that run what they find in their cache (setup-demo-cli.sh, setup-node-modules.sh,
# setup-terraform.sh, whose env.sh the demo sources): a cache folder another user can write is theirs to plant in, a
# cdktf, a node_modules or an env.sh of their own at its predictable name, or a link among the installs whose target
# the prune's `rm -rf link/` emptied (an audit, 2026-12-07: test/unit/scripts/setup-demo-cli.test.ts). Each needs `log`.

# Exits unless $1 is a folder, not a link, owned by this user or root, that no group or other user may write.
private_cache_dir() {
  local owner mode
  if [[ ! -d $1 || -L $1 ]]; then
    log "$1 is not a folder (a link, or missing): not used"
    exit 1
  fi
  read -r owner mode < <(stat -c '%u %a' -- "$1")
  if [[ $owner != "$(id -u)" && $owner != 0 ]]; then
    log "$1 belongs to user $owner, not to $(id -un) or root: not used; set CDKTF_HOMELAB_CACHE to a folder of yours"
    exit 1
  fi
  if ((8#$mode & 8#022)); then
    log "$1 is writable by other users (mode $mode): not used; chmod go-w it, or set CDKTF_HOMELAB_CACHE elsewhere"
    exit 1
  fi
}

# Removes the installs in folder $1 past the $2 newest: only folders named as an install is (12 hex digits), never a
# link, each by its name alone (no name reaches a command as text).
prune_installs() {
  local name
  find "$1" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended -regex '.*/[0-9a-f]{12}' -printf '%T@ %f\n' |
    sort -rn | tail -n +$(($2 + 1)) | while read -r _ name; do rm -rf -- "${1:?}/$name"; done
}
