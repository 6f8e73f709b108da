#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance) against oxmcp:
# the whole server suite against `oxmcp everything-server --http`, and the client scenarios
# that need no authorization against `oxmcp conformance-client`; then the suite's 0.2.0
# line (npm alias conformance-next) with the 2026-07-28 revision's requirements and the
# 2025-11-25 scenarios, and the tasks extension's server scenarios one by one; every
# authorization scenario of both lines against the client. Installs Node 22 and both
# suites from npm into this folder. Ends with "N passed, N failed" (scenario checks).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
repo="$(cd ../.. && pwd)"

stamp=node_modules/.oxmcp-stamp
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
export PATH="$here/node_modules/node/bin:$PATH"
node --version | grep -q '^v22\.' || { echo "conformance: Node 22 did not install" >&2; exit 1; }
# cargo (run from the repository) takes a relative CARGO_TARGET_DIR from there.
case "${CARGO_TARGET_DIR:-}" in ""|/*) ;; *) export CARGO_TARGET_DIR="$repo/$CARGO_TARGET_DIR" ;; esac
if [ -z "${OXMCP_BIN:-}" ]; then
  (cd "$repo" && cargo build -q -p oxmcp-cli)
  OXMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/oxmcp"
fi
suite="$here/node_modules/.bin/conformance"
out="$(mktemp -d)"
passed=0; failed=0

# --- server suite -------------------------------------------------------------------
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$OXMCP_BIN" everything-server --http "127.0.0.1:$port" 2>"$out/server.log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done
echo "== conformance server --suite all (oxmcp everything-server --http 127.0.0.1:$port)"
"$suite" server --url "http://localhost:$port/mcp" --suite all >"$out/server-suite.log" 2>&1 || true
grep -E '^(✓|✗)|Total:' "$out/server-suite.log" || true
total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out/server-suite.log" | tail -1)"
if [ -z "$total" ]; then
  echo "conformance: the server suite printed no total" >&2
  tail -40 "$out/server-suite.log" >&2
  failed=$((failed + 1))
else
  p="$(echo "$total" | sed -E 's/Total: ([0-9]+) passed, ([0-9]+) failed.*/\1/')"
  f="$(echo "$total" | sed -E 's/Total: ([0-9]+) passed, ([0-9]+) failed.*/\2/')"
  passed=$((passed + p)); failed=$((failed + f))
fi

# --- the 0.2.0 line (conformance-next): the 2026-07-28 revision's requirements -----------
# --requirements runs exactly what the revision requires; scenarios it lists as not scored
# (the optional tasks extension, scenarios pending in the suite itself) are run and shown
# but, as the suite says, do not count.
next="$here/node_modules/conformance-next/dist/index.js"
echo "== conformance-next server --requirements 2026-07-28"
node "$next" server --url "http://localhost:$port/mcp" --requirements 2026-07-28 >"$out/next-2026.log" 2>&1 || true
read -r p f < <(python3 "$here/requirements_total.py" "$out/next-2026.log")
echo "2026-07-28 requirements: $p passed, $f failed"
passed=$((passed + p)); failed=$((failed + f))

echo "== conformance-next server --spec-version 2025-11-25 --suite all"
node "$next" server --url "http://localhost:$port/mcp" --spec-version 2025-11-25 --suite all >"$out/next-2025.log" 2>&1 || true
grep -E '^✗' "$out/next-2025.log" || true
total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out/next-2025.log" | tail -1)"
if [ -z "$total" ]; then
  echo "conformance-next: the 2025-11-25 run printed no total" >&2
  tail -40 "$out/next-2025.log" >&2
  failed=$((failed + 1))
else
  echo "2025-11-25 (0.2.0 line): $total"
  p="$(echo "$total" | sed -E 's/Total: ([0-9]+) passed, ([0-9]+) failed.*/\1/')"
  f="$(echo "$total" | sed -E 's/Total: ([0-9]+) passed, ([0-9]+) failed.*/\2/')"
  passed=$((passed + p)); failed=$((failed + f))
fi

# --- the extensions: each server scenario of tasks (SEP-2663) and skills (SEP-2640) ------
pending_tasks=""
server_list="$(node "$next" list 2>/dev/null | sed -n '/^Server scenarios/,/^Client scenarios/p')"
task_scenarios="$(echo "$server_list" | grep -oE '^  - tasks-[a-z0-9-]+' | sed 's/^  - //' | sort -u)"
skill_scenarios="$(echo "$server_list" | grep -oE '^  - sep-2640-[a-z0-9-]+' | sed 's/^  - //' | sort -u)"
if [ -z "$task_scenarios" ]; then echo "conformance: the suite listed no tasks scenarios" >&2; failed=$((failed + 1)); fi
if [ -z "$skill_scenarios" ]; then echo "conformance: the suite listed no skills scenarios" >&2; failed=$((failed + 1)); fi
for scenario in $task_scenarios $skill_scenarios; do
  case " $pending_tasks " in *" $scenario "*) echo "- $scenario: not run (pending in oxmcp, see above)"; continue ;; esac
  log="$out/server-$scenario.log"
  node "$next" server --url "http://localhost:$port/mcp" --scenario "$scenario" >"$log" 2>&1 || true
  line="$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed' "$log" | tail -1)"
  if [ -z "$line" ]; then echo "✗ $scenario: no result" >&2; tail -30 "$log" >&2; failed=$((failed + 1)); continue; fi
  p="$(echo "$line" | sed -E 's/Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed.*/\1/')"
  f="$(echo "$line" | sed -E 's/Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed.*/\2/')"
  if [ "$f" = 0 ]; then echo "✓ $scenario (extension): $line"; else echo "✗ $scenario (extension): $line"; grep -E 'FAILURE' "$log" | head -5; fi
  passed=$((passed + p)); failed=$((failed + f))
done

kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true

# --- client scenarios (mock servers listen on all interfaces: loopback-only namespace) -
# The 0.1.16 line's scenarios (the session era), then the 0.2.0 line's 2026-07-28 client
# requirements, plus the JSON Schema preservation scenario the suite added after the
# release. Authorization: every auth/ scenario each line lists; in the 0.2.0 line at
# every spec version it lists (extensions forced: they are on no spec timeline).
next_client="tools_call request-metadata sep-2322-client-request-state http-standard-headers http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation"
# The skills extension's client scenarios (extensions are on no spec timeline: forced).
skill_client="$(node "$next" list 2>/dev/null | sed -n '/^Client scenarios/,/^[A-Z]/p' | grep -oE '^  - sep-2640-[a-z0-9-]+' | sed 's/^  - //' | sort -u)"
if [ -z "$skill_client" ]; then echo "conformance: the suite listed no skills client scenarios" >&2; failed=$((failed + 1)); fi
old_auth="$("$suite" list 2>/dev/null | grep -oE '^  - auth/[a-z0-9-]+' | sed 's/^  - //' | sort -u)"
next_auth="$(node "$next" list 2>/dev/null | sed -n '/^Client scenarios/,/^[A-Z]/p' | grep -E '^  - auth/' | sed -E 's/^  - (auth\/[a-z0-9-]+) \[([^]]*)\].*/\1 \2/' | while read -r name versions; do for v in ${versions//,/ }; do echo "$name@$v"; done; done | sort -u)"
if [ -z "$old_auth" ] || [ -z "$next_auth" ]; then echo "conformance: the suites listed no auth scenarios" >&2; failed=$((failed + 1)); fi
scenarios="initialize tools_call elicitation-sep1034-client-defaults sse-retry $old_auth $(printf 'next:%s ' $next_client $next_auth) $(printf 'next:%s@extension ' $skill_client)"
for scenario in $scenarios; do
  log="$out/client-$(echo "$scenario" | tr ':/@,' '----').log"
  case "$scenario" in
    next:*@*)
      # auth/NAME@version: at that spec version, or forced when it is an extension.
      v="${scenario#*@}"; scenario="${scenario%@*}"; scenario="${scenario#next:}"
      case "$v" in
        extension) run="node '$next' client --spec-version 2026-07-28 --force"; scenario_label="$scenario (extension)" ;;
        *) run="node '$next' client --spec-version $v"; scenario_label="$scenario ($v)" ;;
      esac ;;
    next:*) scenario="${scenario#next:}"; run="node '$next' client --spec-version 2026-07-28"; scenario_label="$scenario (2026-07-28)" ;;
    *) run="'$suite' client"; scenario_label="$scenario" ;;
  esac
  unshare -n sh -c "ip link set lo up && exec $run --command '$OXMCP_BIN conformance-client' --scenario '$scenario'" >"$log" 2>&1 || true
  line="$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed' "$log" | tail -1)"
  if [ -z "$line" ]; then
    echo "✗ client $scenario_label: no result" >&2
    tail -30 "$log" >&2
    failed=$((failed + 1))
    continue
  fi
  p="$(echo "$line" | sed -E 's/Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed.*/\1/')"
  f="$(echo "$line" | sed -E 's/Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed.*/\2/')"
  if [ "$f" = 0 ] && grep -q 'OVERALL: PASSED' "$log"; then echo "✓ client $scenario_label: $line"; else echo "✗ client $scenario_label: $line"; grep -E 'FAILURE|WARNING' "$log" | head -5; f=$((f > 0 ? f : 1)); fi
  passed=$((passed + p)); failed=$((failed + f))
done

echo "conformance: $passed passed, $failed failed"
[ "$failed" = 0 ]
