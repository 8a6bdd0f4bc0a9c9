#!/usr/bin/env bash
# npm's prepare, which `npm install git+https://...` runs in its clone before packing it (prepack it does not
# run): without it a git install gets no dist/ and no handler bundles, only README, API.md and LICENSE. A tree
# already built (a developer's, or npm pack's right after prepack) is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f dist/index.js ] && [ -f build/handlers/pve.js ]; then exit 0; fi
exec bash scripts/build.sh
