# Sourced by run.sh: builds each host's scenario server (tests/scenarios/README.md) and the
# host clients hosts.test.mjs runs, then writes how to start them to .work/hosts.json:
#   {"servers": {HOST: [command...]}, "clients": {HOST: [command... with ERA where the era goes,
#   or none for a client that runs both eras at once]}}
# Each host builds the way its own suite does (its run-tests.sh), into .work/ or the host's
# own target/, so a run after that suite reuses what it built.

prepare_hosts() {
  local target="${CARGO_TARGET_DIR:-$REPO/target}"
  log "cargo build -p oxmcp-c -p oxmcp-java (the C, C# and Java hosts' native libraries)"
  (cd "$REPO" && cargo build --quiet -p oxmcp-c -p oxmcp-java)

  # C: the scenario server and client, against the shared library.
  local cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$REPO/bindings-c/include")
  for prog in scenario_server scenario_client; do
    gcc "${cflags[@]}" "$REPO/bindings-c/tests/$prog.c" -o ".work/c_$prog" \
      -L"$target/debug" -loxmcp -lpthread -Wl,-rpath,"$target/debug"
  done

  # C#: the binding and its test program (whose `server` mode is the scenario server), on mono.
  if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
    log "apt-get install mono-mcs mono-runtime"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime) >/dev/null
  fi
  mkdir -p .work/dotnet
  cp "$target/debug/liboxmcp.so" .work/dotnet/liboxmcp.so
  mcs -langversion:7.2 -target:library -nowarn:1591 -out:.work/dotnet/OxMcp.dll "$REPO"/bindings-dotnet/OxMcp/*.cs >/dev/null
  mcs -langversion:7.2 -out:.work/dotnet/OxMcp.Tests.exe -r:.work/dotnet/OxMcp.dll "$REPO"/bindings-dotnet/Tests/*.cs >/dev/null

  # Java and Kotlin: test classes compiled by Maven, taking turns with their suites' runs.
  local java="$REPO/bindings-java" kotlin="$REPO/bindings-kotlin"
  log "mvn test-compile (Java, Kotlin)"
  (cd "$java" && flock 9 && mvn -q -B -ntp test-compile) 9>"$java/.run-tests.lock" >.work/java-build.log 2>&1 \
    || { cat .work/java-build.log >&2; return 1; }
  (cd "$kotlin" && flock 9 && mvn -q -B -ntp test-compile dependency:build-classpath -Dmdep.outputFile="$HERE/.work/kotlin.cp" \
    -Doxmcp.library.dir="$target/debug") 9>"$kotlin/.run-tests.lock" >.work/kotlin-build.log 2>&1 \
    || { cat .work/kotlin-build.log >&2; return 1; }

  # Node: the addon its suite builds (or scripts/package.sh put there), unless the engine or
  # the binding changed since.
  local addon="$REPO/bindings-node/oxmcp.linux-x64-gnu.node"
  if [[ ! -f "$addon" || -n "$(find "$REPO/core/src" "$REPO/bindings-node/src" -newer "$addon" -print -quit)" ]]; then
    log "building the Node addon"
    (cd "$REPO/bindings-node" && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
  fi

  local scenarios="$REPO/tests/scenarios/scenarios.json"
  local kotlin_cp="$kotlin/target/classes:$kotlin/target/test-classes:$(cat .work/kotlin.cp)"
  SERVERS_PY="$REPO/bindings-python/tests/scenario_server.py" python3 - "$scenarios" >.work/hosts.json <<PY
import json, os, sys
servers = {
    "python": ["$PYTHON", os.environ["SERVERS_PY"]],
    "node": ["node", "$REPO/bindings-node/test/fixtures/scenario-server.mjs"],
    "c": ["$HERE/.work/c_scenario_server"],
    "csharp": ["mono", "$HERE/.work/dotnet/OxMcp.Tests.exe", "scenario-server"],
    "java": ["java", "-Doxmcp.library.path=$target/debug/liboxmcp_java.so",
             "-cp", "$java/target/classes:$java/target/test-classes", "dev.oxmcp.ScenarioServer"],
    "kotlin": ["java", "-Djna.library.path=$target/debug", "-cp", "$kotlin_cp",
               "dev.oxmcp.kotlin.scenarios.ScenarioServerKt"],
}
clients = {
    # Each calls the scenario server of its own host, in the era given as ERA.
    "python": ["$PYTHON", "$HERE/python_host.py", "stdio-client", "ERA"] + servers["python"],
    "node": ["node", "$HERE/node_host.mjs", "ERA"] + servers["node"],
    "c": ["$HERE/.work/c_scenario_client", sys.argv[1], "ERA"] + servers["c"],
    "java": servers["java"][:-1] + ["dev.oxmcp.HostClientMain", "ERA"] + servers["java"],
    "kotlin": servers["kotlin"][:-1] + ["dev.oxmcp.kotlin.scenarios.HostClientKt", "ERA"] + servers["kotlin"],
    # The C# scenario runner: every scenario in both eras against the C# scenario server.
    "csharp": ["mono", "$HERE/.work/dotnet/OxMcp.Tests.exe", "scenarios"],
}
json.dump({"servers": servers, "clients": clients}, sys.stdout)
PY
  export HOSTS_JSON="$HERE/.work/hosts.json"
}
