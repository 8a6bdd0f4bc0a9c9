#!/usr/bin/env bash
# Offline Terraform toolchain for the stacks and e2e tests: builds hashicorp/external 2.3.5 (upstream Go module,
# else a same-contract stand-in) into a filesystem mirror + CLI config, as no Terraform registry is reachable
# here and a plain "terraform init" fails. Idempotent; other scripts then `source "$CACHE/terraform/env.sh"`.
set -euo pipefail

EXTERNAL_VERSION=2.3.5
EXTERNAL_MODULE=github.com/terraform-providers/terraform-provider-external
EXTERNAL_COMMIT=8c00d8b09dd569b30a80ceedfb3a7aa163999c26 # v2.3.5 = pseudo-version v1.2.1-0.20250502150524-8c00d8b09dd5
STAND_IN_DIR=$(cd "$(dirname "$0")/.." && pwd)/test/stand-ins/terraform-provider-external
TOFU_VERSION=1.12.6 # the default binary only when terraform >= 1.5 is missing, or FORCE_TOFU=1

CACHE=${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}
TF_DIR=$CACHE/terraform
TOOL_DIR=$TF_DIR/external-$EXTERNAL_VERSION
MIRROR=$TOOL_DIR/mirror
CLI_CONFIG=$TF_DIR/cli.tfrc
ENV_FILE=$TF_DIR/env.sh

mkdir -p "$TF_DIR"
exec 9>"$TF_DIR/.lock" && flock 9 # concurrent runs wait instead of racing on the same files

trap 'rm -rf "$TF_DIR"/.gobin.* "$TF_DIR"/.tofu-src.*' EXIT # leftovers of an interrupted build
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

main() {
  # 1. Binaries: OpenTofu always (CI runs the e2e suites on both), built from its Go module; terraform >= 1.5
  # from PATH, the default when present.
  TOFU_BIN_DIR=$TF_DIR/tofu-$TOFU_VERSION/bin
  TOFU_PATH=$TOFU_BIN_DIR/tofu
  if [[ $(cli_info "$TOFU_PATH" terraform_version) == "$TOFU_VERSION" ]]; then
    step tofu "OpenTofu $TOFU_VERSION already built at $TOFU_PATH (skipped)"
  else
    # go install …@version is refused (go.mod has a replace directive): build inside a copy of the module.
    src=$(cd / && go mod download -json "github.com/opentofu/opentofu@v$TOFU_VERSION" |
      sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
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
  BIN=tofu BIN_PATH=$TOFU_PATH HOST=registry.opentofu.org
  if [[ ${FORCE_TOFU:-0} != 1 ]] && TF_PATH=$(command -v terraform) &&
    [[ $(cli_info "$TF_PATH" terraform_version) =~ ^([0-9]+)\.([0-9]+)\. ]] &&
    ((BASH_REMATCH[1] > 1 || (BASH_REMATCH[1] == 1 && BASH_REMATCH[2] >= 5))); then
    BIN=terraform BIN_PATH=$TF_PATH HOST=registry.terraform.io
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
  # CDKTF_HOMELAB_TERRAFORM=tofu|terraform picks the binary; cdktf and the tests follow TERRAFORM_BINARY_NAME.
  {
    echo "# Generated by scripts/setup-terraform.sh — source before running terraform/cdktf."
    echo "export TF_CLI_CONFIG_FILE='$CLI_CONFIG'"
    echo "case \":\$PATH:\" in *':$TOFU_BIN_DIR:'*) ;; *) export PATH='$TOFU_BIN_DIR':\"\$PATH\" ;; esac"
    echo "case \${CDKTF_HOMELAB_TERRAFORM:=$BIN} in"
    echo "  terraform | tofu) export TERRAFORM_BINARY_NAME=\$CDKTF_HOMELAB_TERRAFORM ;;"
    echo "  *) echo \"CDKTF_HOMELAB_TERRAFORM must be terraform or tofu, got '\$CDKTF_HOMELAB_TERRAFORM'\" >&2;" \
      "return 1 ;;"
    echo "esac"
  } | write "$ENV_FILE"
  step env "$ENV_FILE"

  echo "[setup-terraform] binary:   $BIN_PATH ($BIN, mirror host $HOST; CDKTF_HOMELAB_TERRAFORM=tofu for $TOFU_PATH)"
  echo "[setup-terraform] provider: ${PROVIDER/registry.terraform.io/$HOST}"
  echo "[setup-terraform] use:      source $ENV_FILE"
}

main "$@"
