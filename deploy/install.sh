#!/usr/bin/env bash
# Production install, run in the checkout that will serve (the Dockerfile runs exactly this):
#   1. npm ci           every dependency, the site's build tools included
#   2. npm run build    the prerendered site into apps/web/build/client, the service's bundle into
#                       apps/auth/dist (a faster start; main.ts runs the sources if it goes stale)
#   3. npm prune        drops the build and test tools (--omit=dev)
#   4. bin/node         a link to the Node (>= 22.22) it used, for the systemd unit's ExecStart
# Then start with `bin/node apps/auth/src/main.ts` (deploy/systemd/namaa@.service does).
# Why not `npm ci --omit=dev` alone: without the build tools there is no site, and `npm start` then
# tries to build it and fails. The entry point above never builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
# A Node downloaded by ensure-node.sh (when the machine's is older than 22.22) lives in the app
# directory, where the service user can read it, not in root's home.
export NAMAA_NODE_CACHE="${NAMAA_NODE_CACHE:-$PWD/.node}"
# Its own package.json: without one, npm would take this checkout as the project and install there.
mkdir -p "$NAMAA_NODE_CACHE"
[ -f "$NAMAA_NODE_CACHE/package.json" ] || echo '{ "private": true }' > "$NAMAA_NODE_CACHE/package.json"
# shellcheck source=../scripts/ensure-node.sh
source scripts/ensure-node.sh
started=$(date +%s)
echo "install: npm ci" >&2
npm ci --no-audit --no-fund
echo "install: building the site and the service bundle" >&2
npm run build
echo "install: removing development dependencies" >&2
npm prune --omit=dev --no-audit --no-fund
mkdir -p bin
ln -sfn "$(command -v node)" bin/node
echo "install: done in $(( $(date +%s) - started )) s; start with: bin/node apps/auth/src/main.ts" >&2
