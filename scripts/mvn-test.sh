#!/usr/bin/env bash
# `mvn -B test` in the current folder with the given extra arguments, its output shown as it
# goes, then Surefire's summary line last (on a line of its own: Maven may end without a
# newline), so the test command's summary shows how many tests ran. Exits with Maven's status.
# Used by bindings-java/run-tests.sh and bindings-kotlin/run-tests.sh.
set -uo pipefail
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
mvn -B -ntp -Dstyle.color=never test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo
grep -E '^\[(INFO|ERROR|WARNING)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$log" | tail -1 | sed 's/^\[[A-Z]*\] //'
exit "$status"
