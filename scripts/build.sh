#!/usr/bin/env bash
# npm run build (and prepack): the handler bundles into build/, then dist/ compiled afresh by tsc.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH=$PWD/node_modules/.bin:$PATH # as under npm, so the script also runs on its own
node scripts/bundle-handlers.js
rm -rf dist
tsc -p tsconfig.build.json
