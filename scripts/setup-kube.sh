#!/usr/bin/env bash
# Builds (once, cached by version) the real Kubernetes API server the kube tests run against: kube-apiserver from
# the k8s.io/kubernetes Go module and etcd from Debian's etcd-server package, because no registry reachable here
# ships kube-apiserver and a fake API server would guess the watch, patch and RBAC semantics the tests exist to pin.
set -euo pipefail
# shellcheck source=scripts/private-cache.sh
source "$(dirname "$0")/private-cache.sh"
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)

KUBE_VERSION=1.37.2  # k8s.io/kubernetes; its staging modules are published as v0.<minor>.<patch>
REVISION=1           # bump when the build below changes: it is part of the cache directory's name
CACHE_ROOT="${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/kube"
NAME=v$KUBE_VERSION-r$REVISION
DEST=$CACHE_ROOT/$NAME

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "${t#0}"; }
t_start=$(now_us)
t0=$t_start
step() { # step <name> <detail>: one line per step with the time it took
  local d=$(($(now_us) - t0))
  printf '[setup-kube] %-14s %-70s %d.%02ds\n' "$1" "$2" $((d / 1000000)) $((d % 1000000 / 10000)) >&2
  t0=$(now_us)
}
point_current() { # atomic switch of the `current` symlink the tests read
  ln -sfn "$NAME" "$CACHE_ROOT/.current.tmp" && mv -T "$CACHE_ROOT/.current.tmp" "$CACHE_ROOT/current"
}
runs() { [[ -x $1 ]] && "$1" --version >/dev/null 2>&1; }

mkdir -p "$CACHE_ROOT"
log() { echo "[setup-kube] $*" >&2; }
private_cache_dir "${CACHE_ROOT%/*}"
private_cache_dir "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.lock"
flock 9 # one builder at a time; a second caller waits, then finds the finished cache

if [[ -f $DEST/complete ]] && runs "$DEST/bin/kube-apiserver" && runs "$DEST/bin/etcd"; then
  point_current
  step cached "$DEST ($(head -2 "$DEST/complete" | paste -sd' '))"
  echo "$DEST"
  exit 0
fi

# Leftovers of interrupted builds (we hold the lock, so none is in progress), and a half-valid destination.
rm -rf "$CACHE_ROOT"/.tmp-* "$DEST"
TMP=$(mktemp -d "$CACHE_ROOT/.tmp-$NAME-XXXXXX")
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"

# 1. etcd: Debian's package, unpacked rather than installed, so no etcd service is set up on the machine and a
#    non-root user can run this too. It is a few seconds against the minutes an embedded etcd's Go build costs.
(cd "$TMP" && apt-get download etcd-server >/dev/null 2>"$TMP/apt.log") || {
  if [[ $(id -u) -ne 0 ]]; then
    cat "$TMP/apt.log" >&2
    echo "[setup-kube] apt-get download etcd-server failed; run apt-get update as root, then retry" >&2
    exit 1
  fi
  apt-get update -qq && (cd "$TMP" && apt-get download etcd-server >/dev/null)
}
deb=$(echo "$TMP"/etcd-server_*.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -O ./usr/bin/etcd >"$TMP/bin/etcd"
chmod 0755 "$TMP/bin/etcd"
ETCD_VERSION=$(dpkg-deb -f "$deb" Version)
rm -f "$deb"
runs "$TMP/bin/etcd" || { echo "[setup-kube] the unpacked etcd does not run" >&2; exit 1; }
step etcd "etcd-server $ETCD_VERSION from apt"

# 2. kube-apiserver. The module zip leaves out staging/, yet go.mod replaces every k8s.io/* staging module with a
#    path under it: drop those replaces and require the published modules of the same minor instead.
export GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOWORK=off GOFLAGS=-mod=mod
src=$(cd / && go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[[ -n $src ]] || { echo "[setup-kube] go mod download k8s.io/kubernetes@v$KUBE_VERSION gave no directory" >&2; exit 1; }
step download "k8s.io/kubernetes@v$KUBE_VERSION ($src)"
work=$TMP/src
cp -r "$src/." "$work" && chmod -R u+w "$work"
rm -f "$work/go.work" "$work/go.work.sum"
staging=$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$work/go.mod")
[[ -n $staging ]] || { echo "[setup-kube] no ./staging replaces in go.mod: the layout changed" >&2; exit 1; }
edits=()
for m in $staging; do edits+=("-dropreplace=$m" "-require=$m@v0.${KUBE_VERSION#*.}"); done
(cd "$work" && go mod edit "${edits[@]}")
step go-mod "$(wc -w <<<"$staging") staging modules now required at v0.${KUBE_VERSION#*.}"

# The version the binary reports (/version, and the emulation-version checks), as hack/lib/version.sh sets it.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v$KUBE_VERSION -X $pkg.gitMajor=${KUBE_VERSION%%.*}"
  ldflags+=" -X $pkg.gitMinor=$(cut -d. -f2 <<<"$KUBE_VERSION") -X $pkg.gitTreeState=clean"
done
(cd "$work" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$TMP/bin/kube-apiserver" ./cmd/kube-apiserver)
runs "$TMP/bin/kube-apiserver" || { echo "[setup-kube] the built kube-apiserver does not run" >&2; exit 1; }
chmod -R u+w "$work" && rm -rf "$work"
step build "kube-apiserver $("$TMP/bin/kube-apiserver" --version | cut -d' ' -f2) with $(go env GOVERSION)"

printf 'kube-apiserver=v%s\netcd=%s\nrevision=%s\nbuilt=%s\n' \
  "$KUBE_VERSION" "$ETCD_VERSION" "$REVISION" "$(date -u +%FT%TZ)" >"$TMP/complete"
rm -f "$TMP/apt.log"
chmod 0755 "$TMP" # mktemp made it private; the binaries are for every user of the machine
mv "$TMP" "$DEST" # atomic: the cache is valid only once fully built
trap - EXIT
point_current # test/support/kube-apiserver.ts runs $CACHE_ROOT/current/bin/*
t0=$t_start
step built "$DEST ($(du -sh "$DEST" | cut -f1))"
echo "$DEST"
