# Sourced by scripts/qemu-run.sh, musl-run.sh and wine-run.sh: the checks that run another
# platform's builds here, each printing "ok - ..." or "not ok - ..." and counted for the
# closing "NAME: N passed, N failed" line (summary).
passed=0
failed=0
check() { # check NAME STATUS
  if [ "$2" = 0 ]; then echo "ok - $1"; passed=$((passed + 1)); else echo "not ok - $1"; failed=$((failed + 1)); fi
}

counted() { # counted NAME COMMAND...: the program's own "N passed, 0 failed" line
  local out line ok errs
  errs="$(mktemp)"
  out="$(timeout 300 "${@:2}" 2>"$errs" | tr -d '\r')"
  line="$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)"
  [[ -n "$line" && "$line" == *" 0 failed" && "$line" != "0 passed"* ]]
  ok=$?
  # What failed, as the program said it on stderr (the C harness's FAIL lines): the first
  # in the check's own line, the others after it.
  local first=""
  if [[ $ok != 0 ]]; then
    first="$(tr -d '\r' <"$errs" | grep -a -m1 -E '^FAIL' || true)"
    tr -d '\r' <"$errs" | grep -a -E '^FAIL' | sed -n '2,20s/^/  /p' >&2
  fi
  rm -f "$errs"
  check "$1: ${line:-no summary}${first:+ ($first)}" $ok
}

cli_checks() { # cli_checks WHAT HOST_CLI CLI [RUNNER...]: the CLI (run through RUNNER, if any)
  # as a stdio server for this machine's client in both eras and with a task, and as a
  # client of a child server of its own.
  local what="$1" host="$2" cli="$3" out era
  shift 3
  for era in session stateless; do
    out="$(timeout 120 "$host" call --era "$era" echo text="hi from $what" "$@" "$cli" everything-server --stdio 2>&1)"
    [ "$out" = "hi from $what" ]; check "this machine's client -> the $what server over stdio ($era era): $out" $?
  done
  out="$(timeout 120 "$host" call slow_compute seconds=1 label=t "$@" "$cli" everything-server --stdio 2>&1)"
  [ "$out" = "t: computed in 1 s" ]; check "a task on the $what server: $out" $?
  out="$(timeout 120 "$@" "$cli" call echo text=nested "$@" "$cli" everything-server --stdio 2>&1 | tr -d '\r')"
  [ "$out" = "nested" ]; check "$what client -> $what child server: $out" $?
}

# No orphan: the child is `sleep`, which reads no stdin and never answers `initialize`, so
# the client is still connecting, and only the tie it made (its supervisor) can end the child
# when the client is killed outright (KILL), or the client's own close when it is interrupted
# (INT, Ctrl-C). A parent that ties nothing is the control: its child must outlive it.
orphan_check() { # orphan_check WANT(ended|survived) SIGNAL NAME ARGS_OF_SLEEP PARENT_COMMAND...
  local want="$1" signal="$2" name="$3" pattern="sleep $4" parent child="" ended=1 state
  shift 4
  "$@" >/dev/null 2>&1 &
  parent=$!
  for _ in $(seq 200); do
    child="$(pgrep -x -f -- "$pattern" | head -1)"
    [ -n "$child" ] && break
    sleep 0.1
  done
  sleep 1 # the parent is waiting for its child
  kill "-$signal" "$parent"
  wait "$parent" 2>/dev/null
  for _ in $(seq 50); do
    state="$(ps -o stat= -p "${child:-0}" 2>/dev/null || true)"
    if [ -z "$state" ] || [[ "$state" == Z* ]]; then ended=0; break; fi
    sleep 0.1
  done
  [ -n "$child" ] && kill -KILL "$child" 2>/dev/null
  if [ "$want" = ended ]; then [ -n "$child" ] && [ "$ended" = 0 ]; else [ -n "$child" ] && [ "$ended" = 1 ]; fi
  check "$name (child pid ${child:-none})" $?
}

summary() { # summary NAME
  echo "$1: $passed passed, $failed failed"
  [ "$failed" = 0 ]
}
