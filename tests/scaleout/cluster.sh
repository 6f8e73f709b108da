# Starts a scaled-out oxmcp: a Redis server, N `oxmcp everything-server --http --redis`
# nodes and haproxy balancing every request round-robin with no affinity, all on free
# loopback ports. Source it, then `cluster_start N DIR`; `cluster_stop` stops everything
# it started, by pid. Sets: REDIS_PORT, REDIS_PID, NODE_PORTS[], NODE_PIDS[], LB_PORT,
# LB_PID, LB_URL.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# Debian packages the scale-out tests need, installed when missing.
cluster_install() {
  if ! command -v redis-server >/dev/null || ! command -v haproxy >/dev/null; then
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server haproxy >/dev/null
  fi
  export PATH="$PATH:/usr/sbin"
}

redis_start() {
  REDIS_PORT="${1:-$(free_port)}"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    >"$CLUSTER_DIR/redis.log" 2>&1 &
  REDIS_PID=$!
  wait_port "$REDIS_PORT"
}

# A node's command: NODE_CMD (words; {port} and {redis} replaced), by default the oxmcp
# CLI's everything server.
node_start() { # index
  local i="$1" port="${NODE_PORTS[$1]}" cmd=()
  local template="$OXMCP_BIN everything-server --http 127.0.0.1:{port} --redis {redis}"
  [ -z "${NODE_CMD:-}" ] || template="$NODE_CMD"
  for word in $template; do
    word="${word//\{port\}/$port}"
    cmd+=("${word//\{redis\}/redis://127.0.0.1:$REDIS_PORT}")
  done
  "${cmd[@]}" >>"$CLUSTER_DIR/node$i.log" 2>&1 &
  NODE_PIDS[$i]=$!
  wait_port "$port"
}

cluster_start() { # nodes dir
  local n="$1"
  CLUSTER_DIR="$2"
  mkdir -p "$CLUSTER_DIR"
  cluster_install
  redis_start
  NODE_PORTS=(); NODE_PIDS=()
  for i in $(seq 0 $((n - 1))); do
    NODE_PORTS[$i]="$(free_port)"
    node_start "$i"
  done
  LB_PORT="$(free_port)"
  {
    echo "defaults"
    echo "  mode http"
    echo "  timeout connect 2s"
    echo "  timeout client 120s"
    echo "  timeout server 120s"
    echo "  timeout tunnel 120s"
    # SSE: forward each event as it comes (no coalescing of small writes).
    echo "  option http-no-delay"
    echo "frontend mcp"
    echo "  bind 127.0.0.1:$LB_PORT"
    echo "  default_backend nodes"
    echo "backend nodes"
    echo "  balance roundrobin"
    echo "  http-reuse never"
    echo "  option http-server-close"
    echo "  option redispatch"
    echo "  retries 2"
    # Which node answered, for tests that must act on it.
    echo "  http-response set-header x-oxmcp-node %s"
    for i in "${!NODE_PORTS[@]}"; do
      echo "  server node$i 127.0.0.1:${NODE_PORTS[$i]} check inter 500ms fall 1 rise 1"
    done
  } >"$CLUSTER_DIR/haproxy.cfg"
  haproxy -f "$CLUSTER_DIR/haproxy.cfg" -db >"$CLUSTER_DIR/haproxy.log" 2>&1 &
  LB_PID=$!
  wait_port "$LB_PORT"
  LB_URL="http://localhost:$LB_PORT/mcp"
}

cluster_stop() {
  for pid in "${LB_PID:-}" "${NODE_PIDS[@]:-}" "${REDIS_PID:-}"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for pid in "${LB_PID:-}" "${NODE_PIDS[@]:-}" "${REDIS_PID:-}"; do
    [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
  done
}
