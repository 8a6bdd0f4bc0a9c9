#!/usr/bin/env bash
# Offline Terraform toolchain for the stacks and e2e tests: builds hashicorp/external 2.3.5 (upstream Go module,
# else a same-contract stand-in) into a filesystem mirror + CLI config, as no Terraform registry is reachable
# here and a plain "terraform init" fails; builds OpenTofu and Terraform 1.15 from the Go module proxy so the
# suites run on them beside the machine's terraform. Idempotent; other scripts then `source "$CACHE/terraform/env.sh"`.
set -euo pipefail

EXTERNAL_VERSION=2.3.5
EXTERNAL_MODULE=github.com/terraform-providers/terraform-provider-external
EXTERNAL_COMMIT=8c00d8b09dd569b30a80ceedfb3a7aa163999c26 # v2.3.5 = pseudo-version v1.2.1-0.20250502150524-8c00d8b09dd5
STAND_IN_DIR=$(cd "$(dirname "$0")/.." && pwd)/test/stand-ins/terraform-provider-external
TOFU_VERSION=1.12.6 # the default binary only when terraform >= 1.5 is missing, or FORCE_TOFU=1
# Never the default: CDKTF_HOMELAB_TERRAFORM=terraform-1.15 picks it. The newest 1.15 the proxy served on
# 2026-12-04 (v1.15.10 and later: "403 Forbidden ... This module version is not available").
TF115_VERSION=1.15.9 # cold (fresh Go caches): 291-441 s wall, 240-252 CPU-s on 2 busy cores; 54 s with a warm GOCACHE
PG_MODULE=github.com/hashicorp/terraform/internal/backend/remote-state/pg
PG_PSEUDO=v0.0.0-20250409131005-35645b8fca68 # the only pg version the proxy serves (its @latest)

CACHE=${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}
TF_DIR=$CACHE/terraform
TOOL_DIR=$TF_DIR/external-$EXTERNAL_VERSION
MIRROR=$TOOL_DIR/mirror
CLI_CONFIG=$TF_DIR/cli.tfrc
ENV_FILE=$TF_DIR/env.sh

# The demo and the tests source env.sh from here: a cache another user can write is refused (private-cache.sh).
# shellcheck source=scripts/private-cache.sh
source "$(dirname "$0")/private-cache.sh"
log() { echo "[setup-terraform] $*" >&2; }
umask 022 # what it makes is no one else's to write, whatever the caller's umask (private_cache_dir)
mkdir -p "$TF_DIR"
private_cache_dir "$CACHE"
private_cache_dir "$TF_DIR"
exec 9>"$TF_DIR/.lock" && flock 9 # concurrent runs wait instead of racing on the same files

trap 'rm -rf "$TF_DIR"/.gobin.* "$TF_DIR"/.tofu-src.* "$TF_DIR"/.tf-src.*' EXIT # leftovers of an interrupted build
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "${t#0}"; }
t0=$(now_us)
step() { # step <name> <detail>: one line per step with the time it took
  local d=$(($(now_us) - t0))
  printf '[setup-terraform] %-9s %-75s %d.%02ds\n' "$1" "$2" $((d / 1000000)) $((d % 1000000 / 10000))
  t0=$(now_us)
}
# Field of `<bin> version -json` (terraform_version, platform), empty if <bin> does not run; TF_CLI_CONFIG_FILE
# may name a missing file (it does on this machine) and would add a warning to the output.
cli_info() {
  TF_CLI_CONFIG_FILE=/dev/null "$1" version -json 2>/dev/null | sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" | head -1
}
is_plugin() { [[ -x $1 && $("$1" 2>&1) == *'This binary is a plugin'* ]]; } # plugins exit 1 when run directly

# Terraform $TF115_VERSION from the proxy's module zip, in a temporary copy. `go install …@v1.15.x` is refused: go.mod
# replaces nested modules (internal/backend/remote-state/*, internal/legacy) with folders the zip leaves out, and the
# proxy refuses them at the tag's commit (403 "This module version is not available"). So the copy (a) drops every
# remote-state backend but pg (the stacks use local and pg: test/e2e/pg-backend.test.ts) and internal/legacy, which
# only they import: `terraform init` with s3, azurerm, gcs, consul, cos, kubernetes, oss or oci says "Unsupported
# backend type"; (b) takes pg from its only served version ($PG_PSEUDO), whose code at v1.15.9 differs only by
# 1.15's interfaces returning tfdiags.Diagnostics instead of error (diffed against the tag): its methods keep their
# bodies under lower-case names, wrapped by the file below. Each edit is counted, so a version whose sources moved
# fails here instead of building something else.
build_terraform_115() { # build_terraform_115 <output binary>
  local src pg work
  src=$(cd / && go mod download -json "github.com/hashicorp/terraform@v$TF115_VERSION" | json_dir)
  pg=$(cd / && go mod download -json "$PG_MODULE@$PG_PSEUDO" | json_dir)
  work=$(mktemp -d "$TF_DIR/.tf-src.XXXXXX")
  cp -r "$src/." "$work" && chmod -R u+w "$work"
  local m dropped=(azure consul cos gcs kubernetes oss s3 oci) init=$work/internal/backend/init/init.go
  for m in "${dropped[@]}"; do
    (cd "$work" && go mod edit -droprequire="${PG_MODULE%/pg}/$m" -dropreplace="${PG_MODULE%/pg}/$m")
  done
  (cd "$work" && go mod edit -droprequire=github.com/hashicorp/terraform/internal/legacy \
    -dropreplace=github.com/hashicorp/terraform/internal/legacy)
  local before=$(wc -l <"$init")
  sed -i -E '/backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|S3)\b/d' "$init" # 8 imports, 8 map entries
  (($(wc -l <"$init") == before - 16)) || { echo "unexpected $init in terraform $TF115_VERSION" >&2; return 1; }
  pg_backend_115 "$pg" "$work/internal/backend/remote-state/pg"
  # The release's flags (.github/scripts/get_product_version.sh, build-terraform-cli.yml at the tag).
  (cd "$work" && CGO_ENABLED=0 GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -trimpath -buildvcs=false \
    -ldflags "-w -s -X github.com/hashicorp/terraform/version.dev=no" -o "$1.tmp" .)
  mv -f "$1.tmp" "$1"
  rm -rf "$work"
}
pg_backend_115() { # pg_backend_115 <served pg module folder> <its folder in the copy>: (b) above
  local dst=$2
  cp -r "$1/." "$dst" && chmod -R u+w "$dst" && rm -f "$dst"/*_test.go "$dst/go.sum"
  printf 'module %s\n\ngo 1.25.10\n' "$PG_MODULE" >"$dst/go.mod" # its requirements are the main module's
  sed -i -E 's/\) (Workspaces|DeleteWorkspace|StateMgr)\(/) \l\1Err(/; s/\bb\.Workspaces\(\)/b.workspacesErr()/' \
    "$dst/backend_state.go"
  sed -i -E 's/^func \(c \*RemoteClient\) (Get|Put|Delete)\(/func (c *RemoteClient) \l\1Err(/' "$dst/client.go"
  (($(cat "$dst/backend_state.go" "$dst/client.go" | grep -cE '[a-z]+Err\(') == 7)) ||
    { echo "unexpected pg backend $PG_PSEUDO" >&2; return 1; }
  cat >"$dst/diags_adapter.go" <<'EOF'
package pg

// Written by cdktf-homelab's scripts/setup-terraform.sh: Terraform 1.15's interfaces return diagnostics.

import (
	"github.com/hashicorp/terraform/internal/states/remote"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
)

func (b *Backend) Workspaces() ([]string, tfdiags.Diagnostics) {
	names, err := b.workspacesErr()
	return names, tfdiags.Diagnostics{}.Append(err)
}

func (b *Backend) DeleteWorkspace(name string, force bool) tfdiags.Diagnostics {
	return tfdiags.Diagnostics{}.Append(b.deleteWorkspaceErr(name, force))
}

func (b *Backend) StateMgr(name string) (statemgr.Full, tfdiags.Diagnostics) {
	mgr, err := b.stateMgrErr(name)
	return mgr, tfdiags.Diagnostics{}.Append(err)
}

func (c *RemoteClient) Get() (*remote.Payload, tfdiags.Diagnostics) {
	payload, err := c.getErr()
	return payload, tfdiags.Diagnostics{}.Append(err)
}

func (c *RemoteClient) Put(data []byte) tfdiags.Diagnostics {
	return tfdiags.Diagnostics{}.Append(c.putErr(data))
}

func (c *RemoteClient) Delete() tfdiags.Diagnostics {
	return tfdiags.Diagnostics{}.Append(c.deleteErr())
}
EOF
}
json_dir() { sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; } # the module folder in `go mod download -json`

main() {
  # --default-only (the demo): only the binary the stacks run on, so a first demo does not wait on two builds it
  # never uses (OpenTofu about 4 min and Terraform 1.15 5-7 min cold, see above); scripts/setup.sh builds both.
  local only_default=false
  [[ ${1:-} == --default-only ]] && only_default=true
  # 1. Binaries: terraform >= 1.5 from PATH, the default when present; OpenTofu (the default without it, and CI
  # runs the e2e suites on both) and Terraform 1.15 built from their Go modules.
  TOFU_BIN_DIR=$TF_DIR/tofu-$TOFU_VERSION/bin
  TOFU_PATH=$TOFU_BIN_DIR/tofu
  BIN=tofu BIN_PATH=$TOFU_PATH HOST=registry.opentofu.org
  if [[ ${FORCE_TOFU:-0} != 1 ]] && TF_PATH=$(command -v terraform) &&
    [[ $(cli_info "$TF_PATH" terraform_version) =~ ^([0-9]+)\.([0-9]+)\. ]] &&
    ((BASH_REMATCH[1] > 1 || (BASH_REMATCH[1] == 1 && BASH_REMATCH[2] >= 5))); then
    BIN=terraform BIN_PATH=$TF_PATH HOST=registry.terraform.io
  fi
  if [[ $(cli_info "$TOFU_PATH" terraform_version) == "$TOFU_VERSION" ]]; then
    step tofu "OpenTofu $TOFU_VERSION already built at $TOFU_PATH (skipped)"
  elif $only_default && [[ $BIN == terraform ]]; then
    step tofu "OpenTofu $TOFU_VERSION not built (--default-only: terraform is the default)"
  else
    # go install …@version is refused (go.mod has a replace directive): build inside a copy of the module.
    src=$(cd / && go mod download -json "github.com/opentofu/opentofu@v$TOFU_VERSION" | json_dir)
    work=$(mktemp -d "$TF_DIR/.tofu-src.XXXXXX")
    cp -r "$src/." "$work" && chmod -R u+w "$work"
    mkdir -p "$TOFU_BIN_DIR"
    # Release flags (.goreleaser.yaml): without version.dev=no it reports "x.y.z-dev" and never matches above.
    (cd "$work" && CGO_ENABLED=0 GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -trimpath \
      -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$TOFU_PATH.tmp" ./cmd/tofu)
    mv -f "$TOFU_PATH.tmp" "$TOFU_PATH"
    rm -rf "$work"
    step tofu "OpenTofu $TOFU_VERSION built with $(go env GOVERSION) at $TOFU_PATH"
  fi
  TF115_BIN_DIR=$TF_DIR/terraform-$TF115_VERSION/bin
  TF115_PATH=$TF115_BIN_DIR/terraform
  if [[ $(cli_info "$TF115_PATH" terraform_version) == "$TF115_VERSION" ]]; then
    step terraform "Terraform $TF115_VERSION already built at $TF115_PATH (skipped)"
  elif $only_default; then
    step terraform "Terraform $TF115_VERSION not built (--default-only)"
  else
    mkdir -p "$TF115_BIN_DIR" && build_terraform_115 "$TF115_PATH"
    step terraform "Terraform $TF115_VERSION built with $(go env GOVERSION) at $TF115_PATH"
  fi
  PLATFORM=$(cli_info "$BIN_PATH" platform)
  PLATFORM=${PLATFORM:-linux_amd64}
  step binary "$BIN at $BIN_PATH ($PLATFORM)"

  # 2. hashicorp/external from Go (tags v2.x are not valid Go versions: the go.mod path lacks /v2).
  PROVIDER_NAME=terraform-provider-external_v${EXTERNAL_VERSION}_x5
  PROVIDER=$MIRROR/registry.terraform.io/hashicorp/external/$EXTERNAL_VERSION/$PLATFORM/$PROVIDER_NAME
  UPSTREAM="upstream $EXTERNAL_MODULE@${EXTERNAL_COMMIT:0:12}"
  STAND_IN_SUM=$(cat "$STAND_IN_DIR"/go.mod "$STAND_IN_DIR"/go.sum "$STAND_IN_DIR"/main.go | sha256sum | cut -c1-12)
  STAND_IN="stand-in $STAND_IN_SUM (test/stand-ins/terraform-provider-external)"
  # Rebuild when the binary is missing or broken, or was built from another revision of the stand-in source.
  if is_plugin "$PROVIDER" && grep -qxF -e "$UPSTREAM" -e "$STAND_IN" "$TOOL_DIR/SOURCE" 2>/dev/null; then
    step provider "external $EXTERNAL_VERSION already built: $(cat "$TOOL_DIR/SOURCE") (skipped)"
  else
    gobin=$(mktemp -d "$TF_DIR/.gobin.XXXXXX")
    export GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOOS=${PLATFORM%_*} GOARCH=${PLATFORM#*_}
    if (cd / && GOBIN=$gobin go install "$EXTERNAL_MODULE@$EXTERNAL_COMMIT") 2>"$gobin/log"; then
      origin=$UPSTREAM
    else
      # The module proxy here refuses this module ("403 Forbidden ... This module version is not
      # available"): build our own stand-in with the same schema and program contract instead.
      refusal=$(tr -s "\n\t" "  " <"$gobin/log" | grep -o "[0-9]\{3\} [A-Z].*" || tail -1 "$gobin/log")
      echo "[setup-terraform] upstream refused: $refusal" >&2
      origin=$STAND_IN
      (cd "$STAND_IN_DIR" && go build -mod=readonly -trimpath -o "$gobin/terraform-provider-external" .)
    fi
    mkdir -p "${PROVIDER%/*}"
    install -m 0755 "$gobin/terraform-provider-external" "$PROVIDER.tmp" && mv -f "$PROVIDER.tmp" "$PROVIDER"
    is_plugin "$PROVIDER" || { echo "built provider does not run: $PROVIDER" >&2; exit 1; }
    echo "$origin" >"$TOOL_DIR/SOURCE"
    step provider "external $EXTERNAL_VERSION built with $(go env GOVERSION): $origin"
  fi
  # OpenTofu resolves hashicorp/external to registry.opentofu.org: same binary under that hostname.
  TOFU_PROVIDER=$MIRROR/registry.opentofu.org/hashicorp/external/$EXTERNAL_VERSION/$PLATFORM/$PROVIDER_NAME
  mkdir -p "${TOFU_PROVIDER%/*}" && ln -f "$PROVIDER" "$TOFU_PROVIDER"

  # 3. CLI config: external only from the mirror, never from the network; no plugin cache (must not be the mirror).
  write() { cat >"$1.tmp" && mv -f "$1.tmp" "$1"; } # atomic: readers never see half a file
  write "$CLI_CONFIG" <<EOF
# Generated by scripts/setup-terraform.sh — do not edit.
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = "$MIRROR"
    include = ["registry.terraform.io/hashicorp/external", "registry.opentofu.org/hashicorp/external"]
  }
  direct {
    exclude = ["registry.terraform.io/hashicorp/external", "registry.opentofu.org/hashicorp/external"]
  }
}
EOF
  step cli-config "$CLI_CONFIG"

  # 4. env.sh for other scripts (and test/support/toolchain.ts): source it before terraform/cdktf.
  # CDKTF_HOMELAB_TERRAFORM=tofu|terraform|terraform-1.15 picks the binary; cdktf and the tests follow
  # TERRAFORM_BINARY_NAME. terraform-1.15 puts its folder first on PATH, so a plain `terraform` runs it too.
  {
    echo "# Generated by scripts/setup-terraform.sh — source before running terraform/cdktf."
    echo "export TF_CLI_CONFIG_FILE='$CLI_CONFIG'"
    echo "case \":\$PATH:\" in *':$TOFU_BIN_DIR:'*) ;; *) export PATH='$TOFU_BIN_DIR':\"\$PATH\" ;; esac"
    echo "case \${CDKTF_HOMELAB_TERRAFORM:=$BIN} in"
    echo "  terraform | tofu) export TERRAFORM_BINARY_NAME=\$CDKTF_HOMELAB_TERRAFORM ;;"
    echo "  terraform-${TF115_VERSION%.*}) export TERRAFORM_BINARY_NAME=terraform"
    echo "    case \":\$PATH:\" in *':$TF115_BIN_DIR:'*) ;; *) export PATH='$TF115_BIN_DIR':\"\$PATH\" ;; esac ;;"
    echo "  *) echo \"CDKTF_HOMELAB_TERRAFORM must be terraform, terraform-${TF115_VERSION%.*} or tofu," \
      "got '\$CDKTF_HOMELAB_TERRAFORM'\" >&2; return 1 ;;"
    echo "esac"
  } | write "$ENV_FILE"
  step env "$ENV_FILE"

  echo "[setup-terraform] binary:   $BIN_PATH ($BIN, mirror host $HOST; CDKTF_HOMELAB_TERRAFORM=tofu for $TOFU_PATH)"
  echo "[setup-terraform] also:     CDKTF_HOMELAB_TERRAFORM=terraform-${TF115_VERSION%.*} for $TF115_PATH"
  echo "[setup-terraform] provider: ${PROVIDER/registry.terraform.io/$HOST}"
  echo "[setup-terraform] use:      source $ENV_FILE"
}

main "$@"
