#!/usr/bin/env bash
# Offline Terraform toolchain for the stacks and e2e tests: builds hashicorp/external 2.3.5 (upstream Go module,
# else a same-contract stand-in) into a filesystem mirror + CLI config, as no Terraform registry is reachable
# here and a plain "terraform init" fails. Idempotent; other scripts then `source "$CACHE/terraform/env.sh"`.
set -euo pipefail

EXTERNAL_VERSION=2.3.5
EXTERNAL_MODULE=github.com/terraform-providers/terraform-provider-external
EXTERNAL_COMMIT=8c00d8b09dd569b30a80ceedfb3a7aa163999c26 # v2.3.5 = pseudo-version v1.2.1-0.20250502150524-8c00d8b09dd5
FRAMEWORK_VERSION=v1.14.1 # what external v2.3.5 uses; only for the stand-in below
TOFU_VERSION=1.10.10 # used only when terraform >= 1.5 is missing, or FORCE_TOFU=1

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
# "x.y.z" of a terraform/tofu binary, empty if it does not run (TF_CLI_CONFIG_FILE may point at a missing file).
cli_version() { TF_CLI_CONFIG_FILE=/dev/null "$1" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([^"]*\)".*/\1/p' | head -1; }
cli_platform() { TF_CLI_CONFIG_FILE=/dev/null "$1" version -json 2>/dev/null | sed -n 's/.*"platform": *"\([^"]*\)".*/\1/p' | head -1; }
is_plugin() { [[ -x $1 ]] && "$1" 2>&1 | grep -q 'This binary is a plugin'; }

main() {
  # 1. Terraform binary: terraform >= 1.5 from PATH, else OpenTofu built from its Go module.
  BIN=tofu BIN_PATH= HOST=registry.opentofu.org
  if [[ ${FORCE_TOFU:-0} != 1 ]] && BIN_PATH=$(command -v terraform) &&
    [[ $(cli_version "$BIN_PATH") =~ ^([0-9]+)\.([0-9]+)\. ]] &&
    ((BASH_REMATCH[1] > 1 || (BASH_REMATCH[1] == 1 && BASH_REMATCH[2] >= 5))); then
    BIN=terraform HOST=registry.terraform.io
  else
    TOFU_BIN_DIR=$TF_DIR/tofu-$TOFU_VERSION/bin
    BIN_PATH=$TOFU_BIN_DIR/tofu
    if [[ $(cli_version "$BIN_PATH") != "$TOFU_VERSION" ]]; then
      # go install …@version is refused (go.mod has a replace directive): build inside a copy of the module.
      src=$(cd / && go mod download -json "github.com/opentofu/opentofu@v$TOFU_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
      work=$(mktemp -d "$TF_DIR/.tofu-src.XXXXXX")
      cp -r "$src/." "$work" && chmod -R u+w "$work"
      mkdir -p "$TOFU_BIN_DIR"
      (cd "$work" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -o "$BIN_PATH.tmp" ./cmd/tofu)
      mv -f "$BIN_PATH.tmp" "$BIN_PATH"
    fi
  fi
  PLATFORM=$(cli_platform "$BIN_PATH")
  PLATFORM=${PLATFORM:-linux_amd64}
  step binary "$BIN $(cli_version "$BIN_PATH") at $BIN_PATH ($PLATFORM)"

  # 2. hashicorp/external from Go (tags v2.x are not valid Go versions: the go.mod path lacks /v2).
  PROVIDER_NAME=terraform-provider-external_v${EXTERNAL_VERSION}_x5
  PROVIDER=$MIRROR/registry.terraform.io/hashicorp/external/$EXTERNAL_VERSION/$PLATFORM/$PROVIDER_NAME
  if is_plugin "$PROVIDER"; then
    step provider "external $EXTERNAL_VERSION already built: $(cat "$TOOL_DIR/SOURCE") (skipped)"
  else
    gobin=$(mktemp -d "$TF_DIR/.gobin.XXXXXX")
    export GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOOS=${PLATFORM%_*} GOARCH=${PLATFORM#*_}
    if (cd / && GOBIN=$gobin go install "$EXTERNAL_MODULE@$EXTERNAL_COMMIT") 2>"$gobin/log"; then
      origin="upstream $EXTERNAL_MODULE@${EXTERNAL_COMMIT:0:12}"
    else
      # The module proxy here refuses this module ("403 Forbidden ... This module version is not
      # available"): build our own stand-in with the same schema and program contract instead.
      echo "[setup-terraform] upstream refused: $(grep -m1 -o '[0-9]\{3\} [A-Z].*' "$gobin/log" || tail -1 "$gobin/log")" >&2
      origin="stand-in (scripts/setup-terraform.sh), terraform-plugin-framework $FRAMEWORK_VERSION"
      mkdir -p "$TOOL_DIR/stand-in-src"
      printf 'module cdktf-homelab/terraform-provider-external\n\ngo 1.23\n\nrequire github.com/hashicorp/terraform-plugin-framework %s\n' \
        "$FRAMEWORK_VERSION" >"$TOOL_DIR/stand-in-src/go.mod"
      stand_in_source >"$TOOL_DIR/stand-in-src/main.go"
      (cd "$TOOL_DIR/stand-in-src" && go build -mod=mod -trimpath -o "$gobin/terraform-provider-external" .)
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
  {
    echo "# Generated by scripts/setup-terraform.sh — source before running terraform/cdktf."
    echo "export TF_CLI_CONFIG_FILE='$CLI_CONFIG'"
    if [[ $BIN == tofu ]]; then
      echo "export TERRAFORM_BINARY_NAME=tofu"
      echo "case \":\$PATH:\" in *':$TOFU_BIN_DIR:'*) ;; *) export PATH='$TOFU_BIN_DIR':\"\$PATH\" ;; esac"
    fi
  } | write "$ENV_FILE"
  step env "$ENV_FILE"

  echo "[setup-terraform] binary:   $BIN_PATH ($BIN, mirror host $HOST)"
  echo "[setup-terraform] provider: ${PROVIDER/registry.terraform.io/$HOST}"
  echo "[setup-terraform] use:      source $ENV_FILE"
}

# Go source of the stand-in provider (used only when the module proxy refuses the upstream module).
stand_in_source() {
  cat <<'GO'
// Stand-in for hashicorp/external's "external" data source (same schema and stdin/stdout JSON
// contract), served as registry.terraform.io/hashicorp/external over plugin protocol 5.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"os/exec"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type prov struct{}

func (prov) Metadata(_ context.Context, _ provider.MetadataRequest, r *provider.MetadataResponse) {
	r.TypeName, r.Version = "external", "2.3.5"
}
func (prov) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse)          {}
func (prov) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}
func (prov) Resources(context.Context) []func() resource.Resource                             { return nil }
func (prov) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return data{} }}
}

type data struct{}
type model struct {
	Program    types.List   `tfsdk:"program"`
	WorkingDir types.String `tfsdk:"working_dir"`
	Query      types.Map    `tfsdk:"query"`
	Result     types.Map    `tfsdk:"result"`
	ID         types.String `tfsdk:"id"`
}

func (data) Metadata(_ context.Context, q datasource.MetadataRequest, r *datasource.MetadataResponse) {
	r.TypeName = q.ProviderTypeName
}
func (data) Schema(_ context.Context, _ datasource.SchemaRequest, r *datasource.SchemaResponse) {
	r.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"program":     schema.ListAttribute{ElementType: types.StringType, Required: true},
		"working_dir": schema.StringAttribute{Optional: true},
		"query":       schema.MapAttribute{ElementType: types.StringType, Optional: true},
		"result":      schema.MapAttribute{ElementType: types.StringType, Computed: true},
		"id":          schema.StringAttribute{Computed: true},
	}}
}
func (data) Read(ctx context.Context, q datasource.ReadRequest, r *datasource.ReadResponse) {
	var m model
	var program []string
	query := map[string]string{}
	r.Diagnostics.Append(q.Config.Get(ctx, &m)...)
	r.Diagnostics.Append(m.Program.ElementsAs(ctx, &program, false)...)
	if !m.Query.IsNull() {
		r.Diagnostics.Append(m.Query.ElementsAs(ctx, &query, false)...)
	}
	if r.Diagnostics.HasError() {
		return
	}
	if len(program) == 0 || program[0] == "" {
		r.Diagnostics.AddAttributeError(path.Root("program"), "External program missing", "program must name an executable")
		return
	}
	stdin, _ := json.Marshal(query)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, program[0], program[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stderr = m.WorkingDir.ValueString(), bytes.NewReader(stdin), &stderr
	stdout, err := cmd.Output()
	if err != nil {
		r.Diagnostics.AddAttributeError(path.Root("program"), "External program failed",
			"program: "+program[0]+"\nerror: "+err.Error()+"\nstderr: "+stderr.String())
		return
	}
	result := map[string]string{}
	if err := json.Unmarshal(stdout, &result); err != nil {
		r.Diagnostics.AddAttributeError(path.Root("program"), "Unexpected external program result",
			"stdout must be a JSON object whose values are all strings: "+err.Error()+"\nstdout: "+string(stdout))
		return
	}
	var d = r.Diagnostics
	m.Result, d = types.MapValueFrom(ctx, types.StringType, result)
	r.Diagnostics.Append(d...)
	m.ID = types.StringValue("-")
	r.Diagnostics.Append(r.State.Set(ctx, &m)...)
}

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return prov{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/hashicorp/external", ProtocolVersion: 5})
	if err != nil {
		log.Fatal(err)
	}
}
GO
}

main "$@"
