#!/usr/bin/env bash
# The packages as a user without Rust gets them: builds dist/ (scripts/package.sh) unless
# OXMCP_DIST names one already built from this checkout, then runs node's test runner on
# *.test.mjs here: every artifact carries the workspace's version, and each consumer
# (python/, node/, java/, c/, dotnet/ run.sh) installs its artifact into a scratch folder
# outside the workspace and uses it with cargo, rustc and maturin off the PATH.
# Ends with node's test summary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ -z "${OXMCP_DIST:-}" ]]; then
  bash "$root/scripts/package.sh"
  export OXMCP_DIST="$root/dist"
fi
# mono for the C# consumer (the .NET suite installs it too).
if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime) >/dev/null
fi
exec node --test --test-reporter=spec "$here"/*.test.mjs
