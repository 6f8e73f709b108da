#!/usr/bin/env bash
# The Kotlin artifact: dev.oxmcp:oxmcp-kotlin:$VERSION, a jar carrying the release uniffi
# library at linux-x86-64/liboxmcp_kotlin.so (JNA's folder for the platform: with
# OXMCP_NATIVES, scripts/release.sh's, every platform JNA names), with a -sources jar and a
# pom whose version is $VERSION. Built with Maven's `package` profile (bindings-kotlin/pom.xml:
# generate-sources builds the Kotlin side from the library, as for the tests), installed into
# the local Maven repository and copied into $DIST. The tests are not compiled here.
source "$(dirname "$0")/common.sh"

here="$ROOT/bindings-kotlin"
tree="${OXMCP_NATIVES:+$OXMCP_NATIVES/kotlin}"
lib="$NATIVE/liboxmcp_kotlin.so"
[[ -n "$tree" || -f "$lib" ]] || { log "kotlin: no $lib: build the release libraries first"; exit 1; }

# The dev suite builds in the same folder: take turns with it.
exec 9>"$here/.run-tests.lock"
flock 9

natives="$here/target/package-native"
rm -rf "$natives" "$here/target/package"
if [[ -n "$tree" ]]; then
  cp -r "$tree" "$natives"
else
  mkdir -p "$natives/linux-x86-64"
  cp "$lib" "$natives/linux-x86-64/"
fi

log "kotlin: mvn -Ppackage install ($VERSION)"
(cd "$here" && mvn -B -ntp -Dstyle.color=never -Ppackage \
  -Drevision="$VERSION" -Doxmcp.native.dir="$natives" -Dmaven.test.skip=true install)

out="$here/target/package"
jar="$out/oxmcp-kotlin-$VERSION.jar"
for file in $(cd "$natives" && find . -type f | sed 's|^\./||'); do
  unzip -l "$jar" "$file" >/dev/null || { log "kotlin: $jar lacks $file"; exit 1; }
done
unzip -l "$jar" 'dev/oxmcp/kotlin/ffi/*' >/dev/null || { log "kotlin: $jar lacks the generated uniffi classes"; exit 1; }
unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | grep -qx "Implementation-Version: $VERSION" \
  || { log "kotlin: the manifest of $jar lacks Implementation-Version: $VERSION"; exit 1; }
grep -q "<version>$VERSION</version>" "$out/.flattened-pom.xml" \
  || { log "kotlin: the installed pom does not carry version $VERSION"; exit 1; }

mkdir -p "$DIST"
cp "$jar" "$out/oxmcp-kotlin-$VERSION-sources.jar" "$DIST/"
cp "$out/.flattened-pom.xml" "$DIST/oxmcp-kotlin-$VERSION.pom"
log "kotlin: $DIST/oxmcp-kotlin-$VERSION.jar ($(du -h "$jar" | cut -f1): $(cd "$natives" && echo *)), -sources.jar, .pom"
