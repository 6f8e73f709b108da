#!/usr/bin/env bash
# The Java package as a user without a Rust toolchain gets it: installs the files of dist/
# (jar, pom, sources, javadoc) into the local Maven repository, then builds and tests a small
# project depending on dev.oxmcp:oxmcp:$VERSION (PackageTest: the quickstart, a client of the
# packaged CLI's everything server, the version, the library loaded out of the jar) in a
# scratch folder. Ends with Surefire's summary line; exits non-zero on failure.
#
# Env: DIST (the dist folder, absolute), VERSION, WORK (an empty scratch folder outside the
# workspace), OXMCP (the packaged oxmcp CLI).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
: "${DIST:?}" "${VERSION:?}" "${WORK:?}" "${OXMCP:?}"
log() { printf '[packages/java] %s\n' "$*" >&2; }

# A scratch folder inside the workspace would put the workspace's target/ within the
# loader's reach (it looks in parents of the working directory).
case "$(realpath -m "$WORK")/" in
  "$root"/*) log "WORK ($WORK) must be outside the workspace"; exit 1 ;;
esac
# The library must come out of the jar: nothing may name another.
unset OXMCP_JAVA_LIBRARY CARGO_TARGET_DIR

files=("$DIST/oxmcp-$VERSION.jar" "$DIST/oxmcp-$VERSION.pom" "$DIST/oxmcp-$VERSION-sources.jar" "$DIST/oxmcp-$VERSION-javadoc.jar")
for f in "${files[@]}"; do
  [[ -f "$f" ]] || { log "missing $f"; exit 1; }
done

cd "$WORK"
# The files of dist/ themselves, not whatever an earlier build left in the local repository.
log "mvn install:install-file oxmcp-$VERSION.jar"
mvn -B -ntp -q -Dstyle.color=never org.apache.maven.plugins:maven-install-plugin:3.1.2:install-file \
  -Dfile="${files[0]}" -DpomFile="${files[1]}" -Dsources="${files[2]}" -Djavadoc="${files[3]}"

cp -r "$here/pom.xml" "$here/src" "$WORK/"
log "mvn test in $WORK"
set +e
mvn -B -ntp -Dstyle.color=never test -Doxmcp.version="$VERSION" 2>&1 | tee "$WORK/mvn.log"
status=${PIPESTATUS[0]}
set -e
# Surefire's summary line, last (on its own line: Maven may end without a newline).
echo
grep -E '^\[(INFO|ERROR|WARNING)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$WORK/mvn.log" \
  | tail -1 | sed 's/^\[[A-Z]*\] //' || true
exit "$status"
