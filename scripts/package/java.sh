#!/usr/bin/env bash
# The Java artifact: dev.oxmcp:oxmcp:$VERSION, a jar carrying the release JNI library at
# native/linux-x86_64/liboxmcp_java.so (every platform's with OXMCP_NATIVES, below), with its -sources and -javadoc jars and a pom whose
# version is $VERSION. Built with Maven's `package` profile (bindings-java/pom.xml), installed
# into the local Maven repository and copied into $DIST. The binding's tests run elsewhere
# (bindings-java/run-tests.sh): they are not compiled here.
source "$(dirname "$0")/common.sh"

here="$ROOT/bindings-java"
# OXMCP_NATIVES (scripts/release.sh): a tree whose java/native/<platform>/ folders hold every
# platform's library; without it, this platform's release build alone.
tree="${OXMCP_NATIVES:+$OXMCP_NATIVES/java}"
lib="$NATIVE/liboxmcp_java.so"
[[ -n "$tree" || -f "$lib" ]] || { log "java: no $lib: build the release libraries first"; exit 1; }
for tool in java mvn unzip; do
  command -v "$tool" >/dev/null 2>&1 || { log "java: missing required tool: $tool"; exit 1; }
done

# The dev suite builds in the same folder: take turns with it.
exec 9>"$here/.run-tests.lock"
flock 9

# The jar's native tree, one folder per platform (the names Native.platform() gives).
natives="$here/target/package-native"
rm -rf "$natives" "$here/target/package"
if [[ -n "$tree" ]]; then
  cp -r "$tree" "$natives"
else
  mkdir -p "$natives/native/linux-x86_64"
  cp "$lib" "$natives/native/linux-x86_64/"
fi

log "java: mvn -Ppackage install ($VERSION)"
(cd "$here" && mvn -B -ntp -Dstyle.color=never -Ppackage \
  -Drevision="$VERSION" -Doxmcp.native.dir="$natives" -Dmaven.test.skip=true install)

out="$here/target/package"
jar="$out/oxmcp-$VERSION.jar"
# What a consumer gets: the library inside, the version in the manifest and the pom.
for file in $(cd "$natives" && find native -type f); do
  unzip -l "$jar" "$file" >/dev/null || { log "java: $jar lacks $file"; exit 1; }
done
unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | grep -qx "Implementation-Version: $VERSION" \
  || { log "java: the manifest of $jar lacks Implementation-Version: $VERSION"; exit 1; }
grep -q "<version>$VERSION</version>" "$out/.flattened-pom.xml" \
  || { log "java: the installed pom does not carry version $VERSION"; exit 1; }

mkdir -p "$DIST"
cp "$jar" "$out/oxmcp-$VERSION-sources.jar" "$out/oxmcp-$VERSION-javadoc.jar" "$DIST/"
cp "$out/.flattened-pom.xml" "$DIST/oxmcp-$VERSION.pom"
log "java: $DIST/oxmcp-$VERSION.jar ($(du -h "$jar" | cut -f1): $(cd "$natives/native" && echo *)), -sources.jar, -javadoc.jar, .pom"
