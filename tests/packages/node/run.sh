#!/usr/bin/env bash
# Node consumer of dist/, installed the way a user gets it: from an npm registry. A local
# verdaccio (registry/, pinned in its package-lock.json, `npm ci`'d there when it changed)
# serves on a free 127.0.0.1 port with its storage in WORK; `oxmcp` and `oxmcp-*` come only
# from what is published to it (no uplink: a same-named package on npmjs can never be
# picked), everything else from npmjs through it. The two tarballs (the platform package,
# then `oxmcp`) are published to it; a scratch project outside the workspace then runs
# `npm install oxmcp zod@4 typescript@5 @types/node@20` against it and must get the
# linux-x64-gnu platform package and no other, the quickstart in ESM (stdio) and CommonJS
# (HTTP) run, and `tsc --strict` compiles a TypeScript client that is then run. A project
# per other platform installs `oxmcp` for it (--os/--cpu/--libc): npm must pick that
# platform's package when it is published (dist/release/) and leave the Linux addon out.
# Nothing is built; ends with the registry stopped.
# Env: DIST, VERSION, WORK, OXMCP (see ../run.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
examples="$here/../../../bindings-node/examples"

check() { # check NAME OUTPUT PATTERN...: every pattern is a line of OUTPUT
  local name="$1" out="$2"
  shift 2
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$out" || { printf '%s: no line %q in\n%s\n' "$name" "$want" "$out"; exit 1; }
  done
  echo "ok: $name"
}

# --- The registry ------------------------------------------------------------------------
stamp="$here/registry/node_modules/.oxmcp-stamp"
fingerprint="$(cd "$here/registry" && { sha256sum package.json package-lock.json; node --version; } | sha256sum)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$fingerprint" ]]; then
  (cd "$here/registry" && npm ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$fingerprint" >"$stamp"
fi

reg="$WORK/registry"
mkdir -p "$reg/storage"
cat >"$reg/config.yaml" <<YAML
storage: "$reg/storage"
auth:
  htpasswd:
    file: "$reg/htpasswd"
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
packages:
  # Only from the publish below: no proxy.
  'oxmcp':
    access: \$all
    publish: \$authenticated
  'oxmcp-*':
    access: \$all
    publish: \$authenticated
  '@*/*':
    access: \$all
    proxy: npmjs
  '**':
    access: \$all
    proxy: npmjs
# The platform package's tarball is ~8 MB, base64 in the publish request.
max_body_size: 100mb
web:
  enable: false
log: { type: stdout, format: pretty, level: warn }
YAML
# The uplink trusts the certificates npm does (a cafile in an npmrc, as on machines whose
# TLS to npmjs goes through their own CA; NODE_EXTRA_CA_CERTS is not in this environment).
cafile="$(cd "$reg" && npm config get cafile)"
[[ -f "$cafile" ]] || cafile=""
NODE_EXTRA_CA_CERTS="$cafile" node "$here/registry/serve.cjs" "$reg/config.yaml" "$reg/port" >"$reg/log" 2>&1 &
registry_pid=$!
trap 'kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  [[ -s "$reg/port" ]] && break
  kill -0 "$registry_pid" 2>/dev/null || { echo "verdaccio ended:"; cat "$reg/log"; exit 1; }
  sleep 0.1
done
[[ -s "$reg/port" ]] || { echo "verdaccio did not listen within 30 s:"; cat "$reg/log"; exit 1; }
url="http://127.0.0.1:$(cat "$reg/port")/"
curl -sf --retry 20 --retry-connrefused --retry-delay 1 "$url-/ping" >/dev/null \
  || { echo "verdaccio at $url does not answer:"; cat "$reg/log"; exit 1; }
echo "ok: verdaccio at $url"

# A user through the registry's API; its token in a scratch userconfig (not ~/.npmrc).
token="$(curl -sf -X PUT -H 'content-type: application/json' \
  -d '{"name":"oxmcp-test","password":"oxmcp-test-password"}' \
  "$url-/user/org.couchdb.user:oxmcp-test" | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8")).token)')"
[[ -n "$token" ]] || { echo "verdaccio gave no token"; exit 1; }
printf '//127.0.0.1:%s/:_authToken=%s\nupdate-notifier=false\n' "$(cat "$reg/port")" "$token" >"$reg/npmrc"
# The platform packages (this platform's from dist/, the others' from dist/release/ when
# scripts/release.sh made them), then `oxmcp`, which names all of them.
platforms="$(node "$here/../../../scripts/package/npm-manifests.mjs" "$here/../../../bindings-node/package.json" "$VERSION" names)"
published=""
while read -r name _; do
  for tgz in "$DIST/oxmcp-$name-$VERSION.tgz" "$DIST/release/oxmcp-$name-$VERSION.tgz"; do
    [[ -f "$tgz" ]] || continue
    # --tag: npm refuses a prerelease version without one.
    npm publish "$tgz" --registry "$url" --userconfig "$reg/npmrc" --tag latest --loglevel=error >/dev/null
    published+=" $name"
    break
  done
done <<<"$platforms"
npm publish "$DIST/oxmcp-$VERSION.tgz" --registry "$url" --userconfig "$reg/npmrc" --tag latest --loglevel=error >/dev/null
echo "published platform packages:$published"
check "published to the registry" \
  "$(for pkg in oxmcp oxmcp-linux-x64-gnu; do npm view "$pkg" version --registry "$url"; done | paste -sd' ')" \
  "$VERSION $VERSION"

new_project() { # new_project DIR: an empty npm project whose registry is the local one
  mkdir -p "$1"
  cd "$1"
  echo '{ "name": "scratch", "version": "1.0.0", "private": true, "type": "module" }' >package.json
  # resolved URLs in the lockfile whatever ~/.npmrc says, for the check below.
  printf 'registry=%s\nomit-lockfile-registry-resolved=false\nupdate-notifier=false\n' "$url" >.npmrc
}

# --- The consumer ------------------------------------------------------------------------
new_project "$WORK/node"
npm install --no-audit --no-fund --loglevel=error oxmcp zod@4 typescript@5 @types/node@20

# Every package came through the registry, the addon with the platform package alone.
check "installed from the registry" "$(node -p "const p = require('./package-lock.json').packages;
  const elsewhere = Object.keys(p).filter(k => k && !p[k].resolved?.startsWith('$url'));
  ['from elsewhere: ' + (elsewhere.join(' ') || 'none'), p['node_modules/oxmcp']?.resolved,
   p['node_modules/oxmcp-linux-x64-gnu']?.resolved].join('\n')")" \
  "from elsewhere: none" \
  "${url}oxmcp/-/oxmcp-$VERSION.tgz" "${url}oxmcp-linux-x64-gnu/-/oxmcp-linux-x64-gnu-$VERSION.tgz"
check "platform package (linux x64 glibc)" "$(ls -d node_modules/oxmcp* | paste -sd' ')" \
  "node_modules/oxmcp node_modules/oxmcp-linux-x64-gnu"
check layout "$(find node_modules/oxmcp node_modules/oxmcp-linux-x64-gnu -name '*.node' | sort)" \
  "node_modules/oxmcp-linux-x64-gnu/oxmcp.linux-x64-gnu.node"
check versions "$(node -p "require('oxmcp/package.json').version + ' ' + require('oxmcp-linux-x64-gnu/package.json').version")" \
  "$VERSION $VERSION"

cp "$examples/quickstart-server.mjs" "$examples/quickstart-client.mjs" .
check "ESM quickstart (stdio)" "$(node quickstart-client.mjs)" \
  "tools: [ 'add' ]" "progress 50" "add -> 3" "note -> Note todo" "aborted: true"

cp "$here/quickstart.cjs" "$here/typed.ts" .
check "CommonJS quickstart (HTTP)" "$(node quickstart.cjs)" "add -> 5" "note -> Note cjs" "era: stateless"

cat >tsconfig.json <<'JSON'
{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext",
  "outDir": "out", "skipLibCheck": false, "types": ["node"] }, "files": ["typed.ts"] }
JSON
node_modules/.bin/tsc --strict -p tsconfig.json
echo "ok: tsc --strict"
check "TypeScript client" "$(OXMCP="$OXMCP" node out/typed.js)" "echo -> hello" "tools > 5: true"

# --- Other platforms ---------------------------------------------------------------------
# For each platform npm is told it runs on (--os/--cpu/--libc), it installs that platform's
# package when the registry has it, and no other; where it has none (a platform
# scripts/release.sh did not build), oxmcp installs without an addon. The lockfile keeps the
# skipped linux-x64-gnu package as optional, so an `npm ci` of it on Linux gets the addon.
while read -r name os cpu libc; do
  [[ "$name" == linux-x64-gnu ]] && continue
  new_project "$WORK/node-$name"
  flags=(--os="$os" --cpu="$cpu")
  [[ "$libc" == - ]] || flags+=(--libc="$libc")
  npm install --no-audit --no-fund --loglevel=error "${flags[@]}" oxmcp
  if [[ " $published " == *" $name "* ]]; then
    check "platform package ($name: ${flags[*]})" "$(ls -d node_modules/oxmcp* | paste -sd' ')" "node_modules/oxmcp node_modules/oxmcp-$name"
    check "addon ($name)" "$(find node_modules -name '*.node' | sort)" "node_modules/oxmcp-$name/oxmcp.$name.node"
  else
    check "platform package ($name: ${flags[*]}, not published: none)" "$(ls -d node_modules/oxmcp* | paste -sd' ')" "node_modules/oxmcp"
  fi
  check "lockfile ($name)" "$(node -p "const e = require('./package-lock.json').packages['node_modules/oxmcp-linux-x64-gnu'];
    'optional linux-x64-gnu: ' + (e?.optional === true && e.os.join() === 'linux' && e.cpu.join() === 'x64')")" \
    "optional linux-x64-gnu: true"
done <<<"$platforms"
