#!/usr/bin/env bash
# The oxmcp CLI as one standalone binary (glibc 2.17 and up, nothing else to install).
# scripts/package.sh builds it (with the C and Java libraries, in one cargo run).
source "$(dirname "$0")/common.sh"
install -m 755 "$NATIVE/oxmcp" "$DIST/oxmcp"
"$DIST/oxmcp" --version | grep -qx "oxmcp $VERSION" || { log "dist/oxmcp does not say it is $VERSION"; exit 1; }
