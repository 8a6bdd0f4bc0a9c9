#!/usr/bin/env bash
# Builds (once, cached) the Debian rootfs that test/support/systemd-host.ts boots with systemd-nspawn,
# so systemd contract/e2e tests run against a REAL systemd + sshd instead of a fake that guesses semantics.
set -euo pipefail
# shellcheck source=scripts/private-cache.sh
source "$(dirname "$0")/private-cache.sh"
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)

REVISION=6 # bump when the preparation below changes: it is part of the cache key (6: no generators, no motd)
PACKAGES=(systemd systemd-sysv dbus openssh-server sudo python3)
VARIANT=minbase
CACHE_ROOT="${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/systemd-host"

t0=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }
log() { echo "[setup-systemd-host] $*" >&2; }

[[ $(id -u) -eq 0 ]] || { log "must run as root (debootstrap, chroot)"; exit 1; }

# 1. Host tools, only if missing.
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v systemd-nspawn >/dev/null || missing+=(systemd-container)
if ((${#missing[@]})); then
  t=$(date +%s.%N)
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || apt-get update
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  log "apt-get install took $(elapsed "$t")"
fi

# 2. Suite and mirror: the machine's own (override with SYSTEMD_HOST_SUITE / SYSTEMD_HOST_MIRROR).
. /etc/os-release
SUITE="${SYSTEMD_HOST_SUITE:-${VERSION_CODENAME:-bookworm}}"
find_mirror() {
  local f
  # deb822 stanzas: a "Types: deb" stanza whose Suites list the bare suite.
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk -v s="$SUITE" '
      function flush() { if (deb && hit && uri != "") { print uri; found = 1; exit } deb = hit = 0; uri = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) hit = 1 }
      END { if (!found) flush() }' "$f"
  done
  # one-line format: deb [opts] URI suite components
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    sed -E 's/\[[^]]*\]//' "$f" | awk -v s="$SUITE" '$1 == "deb" && $3 == s { print $2 }'
  done
}
MIRROR="${SYSTEMD_HOST_MIRROR:-$(find_mirror | head -n1)}"
[[ -n $MIRROR ]] || { log "no apt mirror for suite $SUITE found in /etc/apt; set SYSTEMD_HOST_MIRROR"; exit 1; }
ARCH=$(dpkg --print-architecture)

SORTED=$(printf '%s\n' "${PACKAGES[@]}" | sort -u | paste -sd, -)
KEY=$(printf 'rev=%s\nsuite=%s\nmirror=%s\narch=%s\nvariant=%s\npackages=%s\n' \
  "$REVISION" "$SUITE" "$MIRROR" "$ARCH" "$VARIANT" "$SORTED" | sha256sum | cut -c1-12)
DEST="$CACHE_ROOT/$KEY"

mkdir -p "$CACHE_ROOT"
private_cache_dir "${CACHE_ROOT%/*}"
private_cache_dir "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.lock"
flock 9 # one builder at a time; a second caller waits, then finds the finished cache

point_current() { ln -sfn "$KEY" "$CACHE_ROOT/.current.tmp" && mv -T "$CACHE_ROOT/.current.tmp" "$CACHE_ROOT/current"; }

if [[ -f $DEST/complete ]]; then
  point_current
  log "cached rootfs: $DEST/rootfs ($SUITE, $MIRROR, $SORTED)"
  echo "$DEST/rootfs"
  exit 0
fi

# A failed debootstrap leaves /proc (maybe /sys, /dev/pts) mounted in the target: unmount before deleting,
# and never let rm cross into another file system.
remove_tree() {
  local d=$1 m
  [[ -e $d ]] || return 0
  awk -v p="$d/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$d"
}
on_fail() {
  cp -f "$TMP/rootfs/debootstrap/debootstrap.log" "$CACHE_ROOT/last-failed-debootstrap.log" 2>/dev/null &&
    log "build failed; debootstrap log kept at $CACHE_ROOT/last-failed-debootstrap.log"
  remove_tree "$TMP"
}

# Leftovers of interrupted builds (we hold the lock, so none is in progress).
for d in "$CACHE_ROOT"/.tmp-* "$DEST"; do remove_tree "$d"; done
TMP=$(mktemp -d "$CACHE_ROOT/.tmp-$KEY-XXXXXX")
trap on_fail EXIT
R="$TMP/rootfs"

# 3. debootstrap.
log "debootstrap $SUITE from $MIRROR ($VARIANT + $SORTED) into $TMP"
t=$(date +%s.%N)
debootstrap --variant="$VARIANT" --arch="$ARCH" --include="$SORTED" "$SUITE" "$R" "$MIRROR" \
  >"$TMP/debootstrap.log" 2>&1 || { tail -n 30 "$TMP/debootstrap.log" >&2; exit 1; }
log "debootstrap took $(elapsed "$t")"

# 4. One-time preparation.
t=$(date +%s.%N)
echo systemd-host >"$R/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tsystemd-host\n' >"$R/etc/hosts"
: >"$R/etc/machine-id" # empty: systemd uses a transient id per boot, no first-boot wizard
rm -f "$R"/etc/ssh/ssh_host_*   # each start generates its own host key
rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/lib/apt/lists/*

# sshd: key-only logins; the per-run part (Port, ListenAddress, HostKey, keys) is bind-mounted at
# /etc/ssh/cdktf-homelab by systemd-host.ts. Debian's sshd_config includes sshd_config.d/*.conf first.
mkdir -p "$R/etc/ssh/cdktf-homelab"
cat >"$R/etc/ssh/sshd_config.d/00-cdktf-homelab.conf" <<'EOF'
Include /etc/ssh/cdktf-homelab/run.conf
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
EOF
# pam_loginuid may fail inside a container and end every session; the tests don't need audit ids.
sed -i -E 's/^session\s+required\s+pam_loginuid\.so/session optional pam_loginuid.so/' "$R/etc/pam.d/sshd"
# No message of the day: pam_motd ran update-motd.d's scripts at every login, and every handler run logs in. Measured,
# 15 logins each (connect, two commands, close) alternating in one boot at load 6: 351-391 ms median with it, 277-283
# ms without. Debian's file stays beside it for the benches (systemd-host.ts `stock`): a real host runs pam_motd.
cp -p "$R/etc/pam.d/sshd" "$R/etc/pam.d/sshd.debian"
sed -i -E '/^session\s+optional\s+pam_motd\.so/d' "$R/etc/pam.d/sshd"
ln -sf /lib/systemd/system/ssh.service "$R/etc/systemd/system/multi-user.target.wants/ssh.service"
rm -f "$R/etc/systemd/system/sockets.target.wants/ssh.socket"

# Nothing slow or noisy at boot: no network-online waits, gettys, first-boot prompts, timers.
for u in systemd-networkd-wait-online.service NetworkManager-wait-online.service \
  console-getty.service getty@.service serial-getty@.service container-getty@.service \
  systemd-firstboot.service apt-daily.timer apt-daily-upgrade.timer apt-daily.service \
  apt-daily-upgrade.service e2scrub_all.timer e2scrub_reap.service fstrim.timer \
  man-db.timer dpkg-db-backup.timer; do
  ln -sf /dev/null "$R/etc/systemd/system/$u"
done
# No generators: each daemon-reload runs all twelve of Debian's (cryptsetup, fstab, getty, sysv and the rest), none
# of which the tests read (the read leaves generator directories out: src/linux/unit-directories.ts). Measured on
# this 2-core machine, six reloads each at load 5-6: 523-801 ms with them, 138-288 ms masked; two heavy contract
# files (host-drop-ins, stale) 95-100 CPU-s against 75-77. A symlink to /dev/null under /etc masks a generator
# (systemd.generator(7)). The benches put them back (systemd-host.ts `stock`): a real host runs them.
mkdir -p "$R/etc/systemd/system-generators"
for g in "$R"/lib/systemd/system-generators/*; do
  ln -sf /dev/null "$R/etc/systemd/system-generators/${g##*/}"
done

# root and a sudo user, both key-only ('*' = no password, but not locked).
chroot "$R" usermod -p '*' root
chroot "$R" useradd -m -s /bin/bash -p '*' deploy
install -d -m 0700 "$R/root/.ssh"
install -d -m 0700 -o "$(chroot "$R" id -u deploy)" -g "$(chroot "$R" id -g deploy)" "$R/home/deploy/.ssh"
echo 'deploy ALL=(ALL) NOPASSWD: ALL' >"$R/etc/sudoers.d/deploy"
chmod 0440 "$R/etc/sudoers.d/deploy"
chroot "$R" visudo -cq
log "preparation took $(elapsed "$t")"

printf 'suite=%s\nmirror=%s\narch=%s\nvariant=%s\npackages=%s\nrevision=%s\nsystemd=%s\nbuilt=%s\n' \
  "$SUITE" "$MIRROR" "$ARCH" "$VARIANT" "$SORTED" "$REVISION" \
  "$(chroot "$R" dpkg-query -W -f='${Version}' systemd)" "$(date -u +%FT%TZ)" >"$TMP/complete"
mv "$TMP" "$DEST" # atomic: the cache is valid only once fully built
trap - EXIT
point_current # systemd-host.ts boots $CACHE_ROOT/current/rootfs
log "built $DEST/rootfs ($(du -sh "$DEST/rootfs" | cut -f1)) in $(elapsed "$t0")"
echo "$DEST/rootfs"
