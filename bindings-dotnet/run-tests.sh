#!/usr/bin/env bash
# Tests of the C# binding (namespace OxMcp), from a fresh clone:
#
#   bash bindings-dotnet/run-tests.sh
#
# Installs mono (apt-get: mono-mcs, mono-runtime) when missing, builds liboxmcp.so
# (cargo build -p oxmcp-c), compiles OxMcp.dll and the test runner with mcs (C# 7.2), then:
#  - the C# client against `oxmcp everything-server` (stdio and Streamable HTTP), an
#    in-process C# server (cancellation both ways) and the C test server (cross-language),
#    each server against a client of each protocol era (auto, session, stateless); tasks
#    (CallToolAsTaskAsync) against the everything-server's task fixtures, stdio and HTTP, each era;
#  - skills and task options (Tests/SkillsTests.cs): a C# server (AddSkill, AddSkillsDirectory,
#    McpTaskOptions with a 1 s TTL) and a C# client in one process over HTTP, each era:
#    list, get, directory read, load, files read byte for byte, refusals, a task gone past its TTL;
#  - the shared behaviour suite (tests/scenarios/scenarios.json): Tests/Scenarios.cs against the
#    C# scenario server (Tests/ScenarioServer.cs, over stdio) in the session and stateless eras,
#    one check per scenario and era, counted with the client tests;
#  - OAuth (Tests/OAuthTests.cs) against a real authorization server (oidc-provider, installed
#    by tests/auth/install.sh) and `oxmcp everything-server --auth-issuer`: client credentials,
#    Unauthorized without OAuth, the authorization code grant (the browser played with
#    tests/auth/browser.mjs), a protected C# server whose handler reads ctx.Auth, and one whose
#    tokens McpServer.VerifyTokens checks (clients sending an Authorization header);
#  - tools, resources and prompts from attributed methods (Tests/TypedTests.cs): a C# server and
#    the typed C# client in one process over HTTP, each era: derived schemas (their shape, and with
#    ajv against the newest specification's schema.json: tests/spec-tools.mjs), values reaching the
#    methods, injected context, progress and cancellation, typed elicitation, results;
#  - the notes example (examples/NotesServer.cs, NotesClient.cs: the hostdx server) over stdio,
#    and its length against the official SDK's;
#  - the official TypeScript SDK client against the C# server (stdio and HTTP), including
#    cancellation reaching the C# handler and a clean exit code 0;
#  - System.Diagnostics.Activity joined to the engine's trace context (Tests/ActivityTests.cs), on
#    the .NET Core runtime of PyPI's dotnetcore2 (mono has no Activity);
# every mono process must exit by itself (a hang fails the run).
# Ends with "N passed, M failed".
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
BUILD="$HERE/build"
mkdir -p "$BUILD"

log() { printf '[bindings-dotnet] %s\n' "$*" >&2; }
PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + ${1:-1})); }
fail() { FAILED=$((FAILED + ${1:-1})); log "FAILED: $2"; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
summary() {
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 ]]
  exit $?
}
# tally LABEL EXIT_STATUS OUTPUT: counts a test program's own "N passed, M failed" line, and
# one more check that it printed one and exited by itself with status 0.
tally() {
  local label="$1" rc="$2" line p f
  line="$(printf '%s\n' "$3" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)"
  if [[ -n "$line" ]]; then
    p="${line%% passed*}"; f="${line#*passed, }"; f="${f%% failed*}"
    pass "$p"
    [[ "$f" -gt 0 ]] && fail "$f" "$label: $line"
    log "$label: $line"
  else
    fail 1 "$label printed no summary (exit $rc)"
  fi
  if [[ $rc -eq 124 ]]; then fail 1 "the $label process did not exit by itself"; elif [[ -n "$line" && $rc -eq 0 ]]; then pass; fi
}

# --- toolchain ----------------------------------------------------------------------------
if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
  log "apt-get install mono-mcs mono-runtime"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime) >/dev/null ||
    { fail 1 "installing mono"; summary; }
fi

log "cargo build -p oxmcp-c"
(cd "$REPO" && cargo build --quiet -p oxmcp-c) || { fail 1 "cargo build -p oxmcp-c"; summary; }
if [[ -z "${OXMCP_BIN:-}" ]]; then
  log "cargo build -p oxmcp-cli"
  (cd "$REPO" && cargo build --quiet -p oxmcp-cli) || { fail 1 "cargo build -p oxmcp-cli"; summary; }
  OXMCP_BIN="$TARGET/debug/oxmcp"
fi

# --- compile ----------------------------------------------------------------------------------
cp "$TARGET/debug/liboxmcp.so" "$BUILD/liboxmcp.so" # DllImport("oxmcp") finds it beside the assembly
if mcs -langversion:7.2 -target:library -warnaserror -nowarn:1591 -doc:"$BUILD/OxMcp.xml" \
    -out:"$BUILD/OxMcp.dll" "$HERE"/OxMcp/*.cs &&
   mcs -langversion:7.2 -warnaserror -out:"$BUILD/OxMcp.Tests.exe" -r:"$BUILD/OxMcp.dll" "$HERE"/Tests/*.cs; then
  pass
else
  fail 1 "mcs"
  summary
fi
# The README's quickstart, as written there.
if mcs -langversion:7.2 -warnaserror -out:"$BUILD/Quickstart.exe" -r:"$BUILD/OxMcp.dll" "$HERE/examples/Quickstart.cs" &&
   qs="$(timeout 120 mono "$BUILD/Quickstart.exe" "$OXMCP_BIN")" &&
   grep -q 'hello from C#' <<<"$qs" && grep -qx 'cancelled' <<<"$qs"; then
  pass
else
  fail 1 "examples/Quickstart.cs"
fi
# The notes server (the hostdx server, /work/shared/hostdx) on the attribute API, driven over stdio
# by its client, each tool, the template and the prompt; no longer than the official SDK's
# Program.cs (60 lines, not blank, not comments) plus 10%.
if mcs -langversion:7.2 -warnaserror -out:"$BUILD/NotesServer.exe" -r:"$BUILD/OxMcp.dll" "$HERE/examples/NotesServer.cs" &&
   mcs -langversion:7.2 -warnaserror -out:"$BUILD/NotesClient.exe" -r:"$BUILD/OxMcp.dll" "$HERE/examples/NotesClient.cs" &&
   notes="$(timeout 120 mono "$BUILD/NotesClient.exe" mono "$BUILD/NotesServer.exe")" &&
   grep -qx 'search_notes, reindex, delete_note' <<<"$notes" && grep -qx 'todo' <<<"$notes" &&
   grep -qx 'progress 1/10' <<<"$notes" && grep -qx 'cancelled' <<<"$notes" && ! grep -q 'progress 10/10' <<<"$notes" &&
   grep -qx 'deleted (obsolete)' <<<"$notes" && grep -qx 'write a parser' <<<"$notes" && grep -qx 'Please review this note:' <<<"$notes"; then
  pass
else
  printf '%s\n' "${notes:-}" >&2
  fail 1 "examples/NotesServer.cs and NotesClient.cs"
fi
loc="$(grep -cvE '^[[:space:]]*(//.*)?$' "$HERE/examples/NotesServer.cs")"
if [[ "$loc" -le 66 ]]; then pass; else fail 1 "examples/NotesServer.cs is $loc lines, more than 66"; fi
# The C test server, for the cross-language test (C# client -> C server).
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -g -I"$REPO/bindings-c/include" "$REPO/bindings-c/tests/server_test.c" \
  -o "$BUILD/c_server" -L"$TARGET/debug" -loxmcp -lpthread -Wl,-rpath,"$TARGET/debug" || fail 1 "gcc server_test.c"

# --- servers the client tests talk to -----------------------------------------------------------
evlog="$BUILD/everything.log"
"$OXMCP_BIN" everything-server --http 127.0.0.1:0 2>"$evlog" &
PIDS+=($!)
EV_URL=""
for _ in $(seq 1 200); do
  EV_URL="$(grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' "$evlog" | head -1)"
  [[ -n "$EV_URL" ]] && break
  sleep 0.05
done
[[ -n "$EV_URL" ]] || { fail 1 "everything-server --http did not start"; summary; }

C_URL=""
if [[ -x "$BUILD/c_server" ]]; then
  cfifo="$BUILD/c_server.stdin"
  rm -f "$cfifo" && mkfifo "$cfifo"
  "$BUILD/c_server" --http <"$cfifo" >"$BUILD/c_server.out" 2>"$BUILD/c_server.err" &
  C_PID=$!
  PIDS+=("$C_PID")
  exec 9>"$cfifo" # holds the server's stdin open; closing it stops the server
  for _ in $(seq 1 200); do
    port="$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$BUILD/c_server.out")"
    [[ -n "$port" ]] && { C_URL="http://127.0.0.1:$port/mcp"; break; }
    sleep 0.05
  done
fi

# --- C# client tests ----------------------------------------------------------------------------
rm -f "$BUILD/typed-tools.json"
out="$(OXMCP_SCENARIOS="$REPO/tests/scenarios/scenarios.json" OXMCP_TYPED_TOOLS="$BUILD/typed-tools.json" timeout 300 mono "$BUILD/OxMcp.Tests.exe" client "$OXMCP_BIN" "$EV_URL" $C_URL 2> >(sed 's|^|[csharp-client] |' >&2))"
tally "C# client" $? "$out"

exec 9>&-
[[ -n "${C_PID:-}" ]] && wait "$C_PID" 2>/dev/null

# --- OAuth against a real authorization server ----------------------------------------------------
source "$REPO/tests/auth/serve.sh"
if auth_servers_start "$BUILD"; then
  PIDS+=("$AS_PID" "$PROTECTED_PID")
  out="$(timeout 300 mono "$BUILD/OxMcp.Tests.exe" oauth "$ISSUER" "$PROTECTED_URL" "$AUTH_NODE" \
    "$REPO/tests/auth/browser.mjs" "$BUILD/oauth-tokens.json" 2> >(sed 's|^|[csharp-oauth] |' >&2))"
  tally "C# OAuth" $? "$out"
else
  PIDS+=(${AS_PID:-} ${PROTECTED_PID:-})
  fail 1 "the OAuth servers did not start"
fi
auth_servers_stop

# --- System.Diagnostics.Activity, on a runtime that has it -----------------------------------------
# mono has no Activity: the same test program runs its `activity` mode (Tests/ActivityTests.cs)
# on the .NET Core 3.1 runtime that PyPI's dotnetcore2 carries, installed into build/.
dotnet_dir="$BUILD/dotnetcore2"
want="dotnetcore2==3.1.23"
if [[ "$(cat "$dotnet_dir/.stamp" 2>/dev/null)" != "$want" ]]; then
  log "pip install $want (a .NET Core runtime)"
  rm -rf "$dotnet_dir"
  python3 -m pip install -q --disable-pip-version-check --target "$dotnet_dir" "$want" >&2 &&
    printf '%s\n' "$want" >"$dotnet_dir/.stamp"
fi
dotnet_root="$dotnet_dir/dotnetcore2/bin"
printf '%s\n' '{"runtimeOptions": {"tfm": "netcoreapp3.1", "framework": {"name": "Microsoft.NETCore.App", "version": "3.1.23"},
  "configProperties": {"System.Globalization.Invariant": true}}}' >"$BUILD/OxMcp.Tests.runtimeconfig.json"
out="$(DOTNET_ROOT="$dotnet_root" timeout 120 "$dotnet_root/dotnet" exec --runtimeconfig "$BUILD/OxMcp.Tests.runtimeconfig.json" \
  "$BUILD/OxMcp.Tests.exe" activity 2> >(sed 's|^|[csharp-activity] |' >&2))"
tally "C# activity" $? "$out"

# --- the official TypeScript SDK client against the C# server ------------------------------------
TS="$REPO/bindings-c/tests/ts"
stamp="$TS/node_modules/.oxmcp-stamp"
fp="$(cat "$TS/package.json" "$TS/package-lock.json" | sha256sum | cut -d' ' -f1) $(node --version)"
# The TS folder is shared by the C and C# suites: take turns installing it.
exec 8>"$TS/.npm-install.lock"
flock 8
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$fp" ]]; then
  log "npm ci (bindings-c/tests/ts)"
  (cd "$TS" && npm ci --no-audit --no-fund --loglevel=error) || { fail 1 "npm ci"; summary; }
  printf '%s\n' "$fp" >"$stamp"
fi
exec 8>&-

# --- the derived tools against the specification's schema.json (ajv, from the TS folder) ----------
if [[ -f "$BUILD/typed-tools.json" ]]; then
  out="$(node "$REPO/tests/spec-tools.mjs" "$BUILD/typed-tools.json" "$TS/node_modules" 2>&1)"
  line="$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)"
  if [[ -n "$line" ]]; then
    p="${line%% passed*}"; f="${line#*passed, }"; f="${f%% failed*}"
    pass "$p"
    [[ "$f" -gt 0 ]] && { printf '%s\n' "$out" >&2; fail "$f" "derived tools against schema.json: $line"; }
    log "derived tools: $line"
  else
    printf '%s\n' "$out" >&2
    fail 1 "spec-tools.mjs printed no summary"
  fi
else
  fail 1 "the C# client tests wrote no typed-tools.json"
fi

out="$(cd "$TS" && SERVER_CMD="[\"mono\", \"$BUILD/OxMcp.Tests.exe\", \"server\"]" SERVER_NAME=csharp-test-server \
  timeout 600 node --test host_server.test.mjs 2>&1)"
rc=$?
p="$(printf '%s\n' "$out" | sed -n 's/^# pass \([0-9]*\)$/\1/p' | tail -1)"
f="$(printf '%s\n' "$out" | sed -n 's/^# fail \([0-9]*\)$/\1/p' | tail -1)"
if [[ -z "$p" || -z "$f" ]]; then
  printf '%s\n' "$out" | tail -40 >&2
  fail 1 "TS client -> C# server: no summary (exit $rc)"
else
  pass "$p"
  if [[ "$f" -gt 0 || $rc -ne 0 ]]; then
    printf '%s\n' "$out" | grep -E -B2 -A25 '^ *not ok' | head -120 >&2
    fail "$((f > 0 ? f : 1))" "TS client -> C# server: $f failed"
  fi
  log "TS client -> C# server: $p passed, $f failed"
fi

summary
