# Sourced by the bindings' test scripts: starts the test authorization server
# (provider.mjs, on the Node 22 install.sh installs) and a protected
# `$OXMCP_BIN everything-server --auth-issuer ... --auth-scopes mcp:read` on free ports of
# 127.0.0.1, logging into the folder given. Sets AUTH_NODE, ISSUER, PROTECTED_URL, AS_PID
# and PROTECTED_PID (the caller also lists the pids in its own cleanup); returns non-zero
# with the reason on stderr when something did not start. `auth_servers_stop` stops both
# by pid.

_auth_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until $2 (a log file) has a line matching $3; fails when process $1 died first.
_auth_wait_line() {
  for _ in $(seq 1 300); do
    grep -qE "$3" "$2" && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

auth_servers_start() {
  local logs="$1" here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  bash "$here/install.sh" >&2 || { echo "tests/auth/install.sh failed" >&2; return 1; }
  AUTH_NODE="$here/node_modules/node/bin/node"
  local as_port mcp_port
  as_port="$(_auth_free_port)"
  "$AUTH_NODE" "$here/provider.mjs" "$as_port" >"$logs/provider.log" 2>&1 &
  AS_PID=$!
  ISSUER="http://127.0.0.1:$as_port"
  if ! _auth_wait_line "$AS_PID" "$logs/provider.log" '^listening'; then
    cat "$logs/provider.log" >&2
    echo "the authorization server did not start" >&2
    return 1
  fi
  mcp_port="$(_auth_free_port)"
  "$OXMCP_BIN" everything-server --http "127.0.0.1:$mcp_port" --auth-issuer "$ISSUER" --auth-scopes mcp:read \
    2>"$logs/protected.log" &
  PROTECTED_PID=$!
  if ! _auth_wait_line "$PROTECTED_PID" "$logs/protected.log" 'http://127\.0\.0\.1:[0-9]+/mcp'; then
    echo "everything-server --auth-issuer did not start" >&2
    return 1
  fi
  PROTECTED_URL="http://127.0.0.1:$mcp_port/mcp"
}

auth_servers_stop() {
  local pid
  for pid in "${PROTECTED_PID:-}" "${AS_PID:-}"; do
    [[ -n "$pid" ]] || continue
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  return 0
}
