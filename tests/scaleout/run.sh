#!/usr/bin/env bash
# Scale-out: three `oxmcp everything-server --http --redis` nodes behind haproxy (round
# robin, no affinity) on a real Redis, all on free loopback ports (cluster.sh):
#   1. the official conformance server suite (--suite all; then the 0.2.0 line's 2026-07-28
#      requirements and its 2025-11-25 suite) through the balancer, as against one node;
#   2. the official TypeScript SDK client's HTTP interop tests (sampling, elicitation,
#      progress, subscriptions, resumption, legacy SSE) through the balancer;
#   3. scaleout.test.mjs: kill -9 of the node holding a resumed stream mid-call, Redis
#      restarted during traffic, stateless-era listeners across nodes, tasks across nodes;
#   4. the conformance server suite through three proxy nodes, then three nodes of the
#      Python, the Node and the Kotlin everything server (examples/, with --redis).
# Installs redis-server and haproxy from Debian when missing, and the npm packages of
# tests/conformance and tests/interop. Ends with node's summary lines and "N passed, N failed"
# of the conformance checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$here/cluster.sh"

# cargo (run from the repository) takes a relative CARGO_TARGET_DIR from there.
case "${CARGO_TARGET_DIR:-}" in ""|/*) ;; *) export CARGO_TARGET_DIR="$repo/$CARGO_TARGET_DIR" ;; esac
if [ -z "${OXMCP_BIN:-}" ]; then
  (cd "$repo" && cargo build -q -p oxmcp-cli)
  OXMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/oxmcp"
fi
export OXMCP_BIN
for dir in conformance interop; do
  [ -d "$repo/tests/$dir/node_modules" ] || (cd "$repo/tests/$dir" && npm ci --no-audit --no-fund --loglevel=error)
done
# scaleout.test.mjs uses the official TypeScript SDK that tests/interop installs.
ln -sfn ../interop/node_modules "$here/node_modules"
node22="$repo/tests/conformance/node_modules/node/bin/node"
suite="$repo/tests/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
next="$repo/tests/conformance/node_modules/conformance-next/dist/index.js"

dir="$(mktemp -d)"
trap 'cluster_stop; rm -rf "$dir"' EXIT
cluster_start 3 "$dir"
echo "== 3 nodes (${NODE_PORTS[*]}) behind haproxy at $LB_URL, Redis on $REDIS_PORT"

passed=0; failed=0
count() { # LOG LABEL: adds the last "Total: N passed, N failed" of LOG
  local total
  total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$1" | tail -1)"
  if [ -z "$total" ]; then echo "✗ $2: no total" >&2; tail -30 "$1" >&2; failed=$((failed + 1)); return; fi
  grep -E '^✗' "$1" || true
  echo "$2: $total"
  passed=$((passed + $(echo "$total" | sed -E 's/Total: ([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$total" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}
"$node22" "$suite" server --url "$LB_URL" --suite all >"$dir/suite.log" 2>&1 || true
count "$dir/suite.log" "conformance --suite all through the balancer"
"$node22" "$next" server --url "$LB_URL" --spec-version 2025-11-25 --suite all >"$dir/next-2025.log" 2>&1 || true
count "$dir/next-2025.log" "conformance 0.2.0 --spec-version 2025-11-25 through the balancer"
"$node22" "$next" server --url "$LB_URL" --requirements 2026-07-28 >"$dir/next-2026.log" 2>&1 || true
# The requirement run lists each scenario; those it does not score are left out, as in
# tests/conformance/run.sh.
read -r p f < <(python3 "$repo/tests/conformance/requirements_total.py" "$dir/next-2026.log")
echo "conformance 0.2.0 2026-07-28 requirements through the balancer: $p passed, $f failed"
passed=$((passed + p)); failed=$((failed + f))
# The tasks extension's scenarios: a task runs on one node, tasks/get, tasks/update and
# tasks/cancel reach others.
for scenario in $("$node22" "$next" list 2>/dev/null | grep -oE '^  - tasks-[a-z0-9-]+' | sed 's/^  - //' | sort -u); do
  "$node22" "$next" server --url "$LB_URL" --scenario "$scenario" >"$dir/$scenario.log" 2>&1 || true
  line="$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed' "$dir/$scenario.log" | tail -1)"
  if [ -z "$line" ]; then echo "✗ $scenario: no result" >&2; tail -20 "$dir/$scenario.log" >&2; failed=$((failed + 1)); continue; fi
  p="$(echo "$line" | sed -E 's/Passed: ([0-9]+)\/.*/\1/')"; f="$(echo "$line" | sed -E 's/.*, ([0-9]+) failed.*/\1/')"
  [ "$f" = 0 ] && echo "✓ $scenario through the balancer: $line" || { echo "✗ $scenario through the balancer: $line"; grep -E 'FAILURE' "$dir/$scenario.log" | head -5; }
  passed=$((passed + p)); failed=$((failed + f))
done

status=0
echo "== the TypeScript SDK client's HTTP interop tests through the balancer"
(cd "$repo/tests/interop" && OXMCP_CLUSTER_URL="$LB_URL" node --test --test-reporter=tap ts_client_http.test.mjs) \
  >"$dir/ts.log" 2>&1 || status=1
grep -E -A 20 '^ +not ok' "$dir/ts.log" | grep -vE '^ +(duration_ms|type|\.\.\.|---)' || true
grep -E '^# (tests|pass|fail) ' "$dir/ts.log" || true

echo "== failures: kill -9, Redis restart, stateless listeners"
nodes="$(for i in "${!NODE_PORTS[@]}"; do printf '{"name":"node%s","pid":%s,"port":%s}\n' "$i" "${NODE_PIDS[$i]}" "${NODE_PORTS[$i]}"; done | paste -sd, -)"
export OXMCP_CLUSTER="{\"lb\":\"$LB_URL\",\"bin\":\"$OXMCP_BIN\",\"dir\":\"$dir\",\"nodes\":[$nodes],\"redis\":{\"pid\":$REDIS_PID,\"port\":$REDIS_PORT}}"
(cd "$here" && node --test --test-reporter=tap scaleout.test.mjs) >"$dir/failures.log" 2>&1 || status=1
grep -E '^not ok|^# (node|the call|resumed|while)' "$dir/failures.log" || true
[ "$status" = 0 ] || tail -60 "$dir/failures.log"
grep -E '^# (tests|pass|fail) ' "$dir/failures.log" || true

cluster_stop

# The same through three `oxmcp proxy --http --redis` nodes (each relaying to stdio servers
# of its own), then through the hosts' own servers: three nodes of the Python, the Node and
# the Kotlin everything server (examples/), each `--redis`, behind haproxy.
python="$repo/bindings-python/.venv/bin/python"
if ! "$python" -c 'import oxmcp' 2>/dev/null; then
  python3 -m venv "$repo/bindings-python/.venv"
  # The wheel of dist/ when the test command built one, else a build from source.
  wheel="$(ls "${OXMCP_DIST:-/nonexistent}"/oxmcp-*-cp39-abi3-*.whl 2>/dev/null || true)"
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}" "$python" -m pip install -q --disable-pip-version-check "${wheel:-$repo/bindings-python}"
fi
[ -f "$repo/bindings-node/oxmcp.linux-x64-gnu.node" ] || (cd "$repo/bindings-node" && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
# The Kotlin everything server (examples/, compiled with the Kotlin tests; Maven brings it up
# to date, taking turns with the Kotlin suite's runs) on the JVM, its library from the
# workspace's debug build.
kotlin="$repo/bindings-kotlin"
kotlin_lib="${CARGO_TARGET_DIR:-$repo/target}/debug"
(cd "$kotlin" && flock 9 && mvn -q -B -ntp test-compile dependency:build-classpath -Dmdep.outputFile="$dir/kotlin.cp" \
  -Doxmcp.library.dir="$kotlin_lib") 9>"$kotlin/.run-tests.lock" >"$dir/kotlin-build.log" 2>&1 \
  || { cat "$dir/kotlin-build.log" >&2; exit 1; }
kotlin_cp="$kotlin/target/classes:$kotlin/target/test-classes:$(cat "$dir/kotlin.cp")"
for host in proxy python node kotlin; do
  case "$host" in
    proxy) NODE_CMD="$OXMCP_BIN proxy --http 127.0.0.1:{port} --redis {redis} -- $OXMCP_BIN everything-server --stdio" ;;
    python) NODE_CMD="$python $repo/bindings-python/examples/everything_server.py --http 127.0.0.1:{port} --redis {redis}" ;;
    node) NODE_CMD="node $repo/bindings-node/examples/everything-server.mjs --http 127.0.0.1:{port} --redis {redis}" ;;
    kotlin) NODE_CMD="java -Djna.library.path=$kotlin_lib -cp $kotlin_cp dev.oxmcp.kotlin.examples.everything.EverythingServerKt --http 127.0.0.1:{port} --redis {redis}" ;;
  esac
  export NODE_CMD
  mkdir -p "$dir/$host"
  cluster_start 3 "$dir/$host"
  "$node22" "$suite" server --url "$LB_URL" --suite all >"$dir/$host-suite.log" 2>&1 || true
  count "$dir/$host-suite.log" "conformance --suite all through the balancer, three $host nodes"
  cluster_stop
done
unset NODE_CMD

echo "scale-out conformance: $passed passed, $failed failed"
[ "$failed" = 0 ] && exit "$status" || exit 1
