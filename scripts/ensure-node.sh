#!/usr/bin/env bash
# Source this file. It makes sure `node` on PATH is 22.22 or newer. The machines ship Node 20, and
# several of our dependencies declare Node 22+ (React Router 8 >=22.22, supabase-js 2.119,
# Lighthouse 13), so when the machine's Node is older we install the official `node` package from the
# npm registry (a prebuilt binary shipped inside a registry package) into a cache folder and put it
# first on PATH.
node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=22)?0:1)'
}
if ! node_ok; then
  NODE_CACHE="${NAMAA_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/namaa-node24}"
  if [ ! -x "$NODE_CACHE/node_modules/node/bin/node" ]; then
    echo "ensure-node: Node $(node --version 2>/dev/null || echo none) is too old; installing Node 24 from the npm registry into $NODE_CACHE" >&2
    mkdir -p "$NODE_CACHE"
    (cd "$NODE_CACHE" && npm install --no-save --no-package-lock --no-audit --no-fund node@24 >/dev/null)
  fi
  export PATH="$NODE_CACHE/node_modules/node/bin:$PATH"
fi
echo "ensure-node: using node $(node --version), npm $(npm --version 2>/dev/null)" >&2
