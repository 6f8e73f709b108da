# Sourced by the consumers' run.sh: a line per check, "N passed, M failed" at the end.
# Each check's output goes to $WORK/log/<name>.log and is shown when it fails.
PASSED=0
FAILED=0
check() { # check NAME COMMAND...
  local name="$1" logf="$WORK/log/${1//[^A-Za-z0-9._-]/_}.log"
  shift
  if "$@" >"$logf" 2>&1; then
    PASSED=$((PASSED + 1))
    echo "ok   $name"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name"
    tail -20 "$logf" | sed 's/^/     | /'
    return 1
  fi
}
summary() {
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 && $PASSED -gt 0 ]]
  exit $?
}
mkdir -p "$WORK/log"
