#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) from the committed seed corpus, with
# cargo-fuzz (libFuzzer + AddressSanitizer). New inputs that found coverage go to a scratch
# copy of the corpus, so the committed seeds stay small; a crash stops the run and leaves
# its input in fuzz/artifacts/TARGET/ (make it a regression test, then fix it).
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
# FUZZ_OPTS adds options to `cargo fuzz run`: the test command's bounded run takes
# `--dev --sanitizer none` (a debug build, with its overflow checks, in a minute or two
# instead of the optimized AddressSanitizer build's ten).
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/ensure-toolchain.sh
seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(line_framing jsonrpc_envelope sse_parser uri_template mirrored_headers http_request)

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# libFuzzer needs nightly compiler flags: the nightly toolchain if there is one, else the
# stable compiler with its nightly features unlocked.
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '%-18s %10s %8s %8s %s\n' target runs cov ft result
for t in "${targets[@]}"; do
    mkdir -p "$work/$t"
    cp corpus/"$t"/* "$work/$t/"
    log="$work/$t.log"
    # shellcheck disable=SC2086 # FUZZ_OPTS is a list of options
    if "${fuzz[@]}" run ${FUZZ_OPTS:-} "$t" "$work/$t" -- -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (fuzz/artifacts/$t.log; a crash input in fuzz/artifacts/$t/)"
        mkdir -p artifacts && cp "$log" "artifacts/$t.log"
    fi
    # libFuzzer's last status line: "#RUNS DONE cov: N ft: N ..."
    line="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
    runs="$(sed -E 's/^#([0-9]+).*/\1/' <<<"$line")"
    cov="$(grep -oE 'cov: [0-9]+' <<<"$line" | cut -d' ' -f2)"
    ft="$(grep -oE 'ft: [0-9]+' <<<"$line" | cut -d' ' -f2)"
    printf '%-18s %10s %8s %8s %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$result"
    [ "$result" = ok ] || exit 1
done
