#!/usr/bin/env bash
# The Java artifact: dev.oxmcp:oxmcp:$VERSION, a jar carrying the release JNI library at
# native/linux-x86_64/liboxmcp_java.so (every platform's with OXMCP_NATIVES: jar.sh), with
# its -sources and -javadoc jars and a pom whose version is $VERSION. Built with Maven's
# `package` profile (bindings-java/pom.xml), installed into the local Maven repository and
# copied into $DIST. The binding's tests run elsewhere (bindings-java/run-tests.sh): they are
# not compiled here.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/jar.sh"

# The jar's native tree, one folder per platform (the names Native.platform() gives).
package_jar java "$ROOT/bindings-java" oxmcp java native/linux-x86_64 "$NATIVE/liboxmcp_java.so"

mkdir -p "$DIST"
cp "$jar" "$out/oxmcp-$VERSION-sources.jar" "$out/oxmcp-$VERSION-javadoc.jar" "$DIST/"
cp "$out/.flattened-pom.xml" "$DIST/oxmcp-$VERSION.pom"
log "java: $DIST/oxmcp-$VERSION.jar ($(du -h "$jar" | cut -f1): $(cd "$natives/native" && echo *)), -sources.jar, -javadoc.jar, .pom"
