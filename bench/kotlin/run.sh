#!/usr/bin/env bash
# One of the Kotlin programs of the cross-SDK benchmark (../suite/PROTOCOL.md), after build.sh:
#
#   run.sh server --impl oxmcp|official (--stdio | --http PORT) [--cancel-log PATH]
#   run.sh driver --impl oxmcp|official --workload W --n N ... (--url URL | -- SERVER_CMD ARG...)
#
# `--impl oxmcp` is oxmcp's Kotlin binding, `--impl official` the official Kotlin SDK. Both
# run with the same JVM flags ($OXMCP_BENCH_JVM_OPTS replaces them):
#  - the serial collector: on 2 cores shared by client and server, no GC threads compete
#    with the program (it is also what the JVM picks by itself on a small machine);
#  - a fixed heap range, so that the GC's sizing does not drift from run to run;
#  - no hsperfdata file (-XX:-UsePerfData): nothing mapped per process for jstat;
#  - the JVM's own warnings to stderr (by default they go to stdout, the stdio transport's
#    channel).
# JIT compilation is left as is (tiered, C2): the runs are short, warm-up included, which
# counts against both implementations alike. Always set: kotlin-logging (the official SDK's
# logging facade) prints a start-up line on stdout unless told not to, which would break the
# stdio transport.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in
  server) main=dev.oxmcp.bench.kotlin.ServerKt ;;
  driver) main=dev.oxmcp.bench.kotlin.DriverKt ;;
  *) echo "usage: run.sh server|driver ARGS... (see the comment at the top)" >&2; exit 2 ;;
esac
shift
[ -f "$here/target/java.args" ] || { echo "run.sh: run bench/kotlin/build.sh first" >&2; exit 1; }
# shellcheck disable=SC2086
exec java ${OXMCP_BENCH_JVM_OPTS:--XX:+UseSerialGC -Xms64m -Xmx1g -XX:-UsePerfData -Xlog:disable -Xlog:all=warning:stderr} \
  -Dkotlin-logging.logStartupMessage=false @"$here/target/java.args" "$main" "$@"
