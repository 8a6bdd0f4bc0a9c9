#!/usr/bin/env bash
# The demo: installs what it needs, synthesizes examples/metrics.ts, and runs real terraform
# init/apply/plan against the embedded fake PVE on loopback (or the cluster in
# PROXMOX_VE_ENDPOINT), showing that the plan after one apply is clean.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1

step() { printf '\n== %s\n' "$*"; }

[ -d node_modules ] || { step "npm ci"; npm ci --no-audit --no-fund; }
step "terraform toolchain (offline provider mirror)"
bash scripts/setup-terraform.sh
# shellcheck source=/dev/null
source "${CDKTF_HOMELAB_CACHE:-/var/cache/cdktf-homelab}/terraform/env.sh"
npm run --silent bundle

embedded=false
if [ -z "${PROXMOX_VE_ENDPOINT:-}" ]; then
  embedded=true
  step "starting the embedded fake PVE on 127.0.0.1"
  fifo=$(mktemp -u) && mkfifo "$fifo"
  node build/fake-pve.js --port 0 --token 'root@pam!demo=demo-secret' >"$fifo" &
  fake_pid=$!
  trap 'kill "$fake_pid" 2>/dev/null || true; rm -f "$fifo"' EXIT
  read -r listening <"$fifo"
  PROXMOX_VE_ENDPOINT=$(node -e 'console.log(JSON.parse(process.argv[1]).url)' "$listening")
  export PROXMOX_VE_ENDPOINT
  export PROXMOX_VE_API_TOKEN='root@pam!demo=demo-secret'
  export INFLUX_TOKEN='demo-influx-token'
  export OTEL_HEADERS='{"Authorization":"Bearer demo-otel"}'
  echo "fake PVE at $PROXMOX_VE_ENDPOINT"
fi
: "${PROXMOX_VE_API_TOKEN:?set PROXMOX_VE_API_TOKEN=USER@REALM!TOKENID=SECRET for $PROXMOX_VE_ENDPOINT}"
: "${INFLUX_TOKEN:?set INFLUX_TOKEN (the InfluxDB token of the lab-influx server)}"
: "${OTEL_HEADERS:?set OTEL_HEADERS to a JSON object of headers for the lab-otel server}"

step "cdktf synth"
rm -rf cdktf.out
npx cdktf synth
cd cdktf.out/stacks/metrics
# The state lives beside cdktf.json (cdktf's local backend); the embedded fake starts empty.
$embedded && rm -f ../../../terraform.metrics.tfstate

step "terraform init (providers from the local mirror)"
terraform init -input=false -no-color >/dev/null && echo "initialised"
step "terraform apply"
log=$(mktemp)
terraform apply -auto-approve -input=false -no-color >"$log" 2>&1 || { cat "$log"; exit 1; }
grep -E 'metric server "[^"]+":|Apply complete' "$log"
echo "(Terraform also repeats the plan-time drift warnings after an apply; the plan below re-reads.)"
step "what the cluster now ships metrics to"
node -e '
  const token = process.env.PROXMOX_VE_API_TOKEN; // from the environment, never argv
  fetch(new URL("api2/json/cluster/metrics/server", process.argv[1] + "/"), { headers: { authorization: "PVEAPIToken=" + token } })
    .then((r) => r.json())
    .then((b) => b.data.forEach((s) => console.log(`  ${s.id}: ${s.type} -> ${s.server}:${s.port}`)));
' "${PROXMOX_VE_ENDPOINT%%,*}" || echo "  (could not list them: check the TLS settings)"
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
