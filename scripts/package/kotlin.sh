#!/usr/bin/env bash
# The Kotlin artifact: dev.oxmcp:oxmcp-kotlin:$VERSION, a jar carrying the release uniffi
# library at linux-x86-64/liboxmcp_kotlin.so (JNA's folder for the platform: with
# OXMCP_NATIVES, scripts/release.sh's, every platform JNA names), with a -sources jar and a
# pom whose version is $VERSION. Built with Maven's `package` profile (bindings-kotlin/pom.xml:
# generate-sources builds the Kotlin side from the library, as for the tests), installed into
# the local Maven repository and copied into $DIST. The tests are not compiled here.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/jar.sh"

package_jar kotlin "$ROOT/bindings-kotlin" oxmcp-kotlin kotlin linux-x86-64 "$NATIVE/liboxmcp_kotlin.so"
unzip -l "$jar" 'dev/oxmcp/kotlin/ffi/*' >/dev/null || { log "kotlin: $jar lacks the generated uniffi classes"; exit 1; }

mkdir -p "$DIST"
cp "$jar" "$out/oxmcp-kotlin-$VERSION-sources.jar" "$DIST/"
cp "$out/.flattened-pom.xml" "$DIST/oxmcp-kotlin-$VERSION.pom"
log "kotlin: $DIST/oxmcp-kotlin-$VERSION.jar ($(du -h "$jar" | cut -f1): $(cd "$natives" && echo *)), -sources.jar, .pom"
