#!/usr/bin/env bash
# The demo: installs what it needs, synthesizes examples/metrics.ts, and runs real terraform
# init/apply/plan against the embedded fake PVE on loopback over HTTPS, with a self-signed
# certificate made for this run and trusted as PROXMOX_VE_CA_FILE (or against the cluster in
# PROXMOX_VE_ENDPOINT), showing that the plan after one apply is clean.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
[ -t 1 ] || export CI=1 # cdktf-cli draws spinners unless CI is set: none in a log or a pipe

step() { printf '\n== %s\n' "$*"; }
# This run's private files (mktemp -d is 0700): the demo key and certificate, the fifo, the logs.
private=$(mktemp -d)
fake_pid=
trap 'if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi; rm -rf "$private"' EXIT

[ -d node_modules ] || { step "npm ci"; npm ci --no-audit --no-fund; }
step "terraform toolchain (offline provider mirror)"
bash scripts/setup-terraform.sh --default-only
# shellcheck source=/dev/null
source "${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/terraform/env.sh"
npm run --silent bundle

embedded=false
if [ -z "${PROXMOX_VE_ENDPOINT:-}" ]; then
  embedded=true
  step "starting the embedded fake PVE on 127.0.0.1 (HTTPS, certificate made for this run)"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$private/key.pem" -out "$private/cert.pem" 2>/dev/null
  mkfifo "$private/listening"
  node build/fake-pve.js --port 0 --tls-dir "$private" --token 'root@pam!demo=demo-secret' >"$private/listening" &
  fake_pid=$!
  read -r listening <"$private/listening"
  PROXMOX_VE_ENDPOINT=$(node -e 'console.log(JSON.parse(process.argv[1]).url)' "$listening")
  export PROXMOX_VE_ENDPOINT PROXMOX_VE_CA_FILE="$private/cert.pem"
  export PROXMOX_VE_API_TOKEN='root@pam!demo=demo-secret'
  export INFLUX_TOKEN='demo-influx-token'
  export OTEL_HEADERS='{"Authorization":"Bearer demo-otel"}'
  echo "fake PVE at $PROXMOX_VE_ENDPOINT, trusted through PROXMOX_VE_CA_FILE=$PROXMOX_VE_CA_FILE"
fi
: "${PROXMOX_VE_API_TOKEN:?set PROXMOX_VE_API_TOKEN=USER@REALM!TOKENID=SECRET for $PROXMOX_VE_ENDPOINT}"
: "${INFLUX_TOKEN:?set INFLUX_TOKEN (the InfluxDB token of the lab-influx server)}"
: "${OTEL_HEADERS:?set OTEL_HEADERS to a JSON object of headers for the lab-otel server}"

step "cdktf synth"
cdktf_cli=$(bash scripts/setup-demo-cli.sh)
rm -rf cdktf.out
"$cdktf_cli/node_modules/.bin/cdktf" synth
cd cdktf.out/stacks/metrics
# The state lives beside cdktf.json (cdktf's local backend); the embedded fake starts empty.
$embedded && rm -f ../../../terraform.metrics.tfstate

step "terraform init (providers from the local mirror)"
terraform init -input=false -no-color >/dev/null && echo "initialised"
step "terraform apply"
log="$private/terraform.log"
terraform apply -auto-approve -input=false -no-color >"$log" 2>&1 || { cat "$log"; exit 1; }
grep -E 'metric server "[^"]+":|Apply complete' "$log"
echo "(Terraform also repeats the plan-time drift warnings after an apply; the plan below re-reads.)"
step "what the cluster now ships metrics to"
node -e '
  // The token comes from the environment, never argv; the CA file trusts the demo certificate.
  const { readFileSync } = require("node:fs");
  const ca = process.env.PROXMOX_VE_CA_FILE ? readFileSync(process.env.PROXMOX_VE_CA_FILE) : undefined;
  const url = new URL("api2/json/cluster/metrics/server", process.argv[1] + "/");
  const headers = { authorization: "PVEAPIToken=" + process.env.PROXMOX_VE_API_TOKEN };
  require("node:" + url.protocol.slice(0, -1)).get(url, { ca, headers }, (res) => {
    let body = "";
    res.on("data", (chunk) => (body += chunk));
    const line = (s) => `  ${s.id}: ${s.type} -> ${s.server}:${s.port}`;
    res.on("end", () => JSON.parse(body).data.forEach((s) => console.log(line(s))));
  }).on("error", (error) => console.log(`  (could not list them: ${error.message}; check the TLS settings)`));
' "${PROXMOX_VE_ENDPOINT%%,*}" || echo "  (could not list them)"
step "terraform plan (must be clean)"
set +e
terraform plan -detailed-exitcode -input=false -no-color >"$log" 2>&1
code=$?
set -e
if [ "$code" -eq 0 ]; then
  echo "the second plan is clean: no changes, the cluster matches the stack"
else
  cat "$log"
  echo "the second plan was not clean (exit $code)" >&2
  exit 1
fi
if $embedded; then
  step "terraform destroy (the fake is thrown away anyway)"
  terraform destroy -auto-approve -input=false -no-color >"$log" 2>&1 || { cat "$log"; exit 1; }
  grep -E 'metric server "[^"]+":|Destroy complete' "$log"
fi
