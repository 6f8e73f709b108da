#!/usr/bin/env bash
# The Java and Kotlin packages as a user without a Rust toolchain gets them, from a Maven
# repository:
#
#   DIST=/abs/dist VERSION=0.1.0 WORK=/empty/scratch OXMCP=/path/to/oxmcp bash tests/packages/java/run.sh
#
# 1. publishes the files of dist/ (jar, pom, sources, javadoc; oxmcp-kotlin's jar, pom and
#    sources) with `mvn deploy:deploy-file`
#    to a file:// repository, $WORK/remote, which stands for a company's repository;
# 2. declares that repository (id oxmcp-local, checksums enforced) in a profile of
#    $WORK/settings.xml, as its users do, and removes dev/oxmcp/*/$VERSION from the local
#    repository (~/.m2/repository, named with -Dmaven.repo.local), so that nothing an earlier
#    run installed can stand in for it;
# 3. builds and tests, with `mvn -s $WORK/settings.xml test`, a small project ($WORK/consumer,
#    from this folder) that only names dev.oxmcp:oxmcp and dev.oxmcp:oxmcp-kotlin:$VERSION as
#    dependencies (PackageTest: the quickstart, a client of the packaged CLI's everything
#    server, the version, the library loaded out of the jar; KotlinPackageTest: a Kotlin
#    server and client, the library JNA found in the jar);
# 4. checks that Maven fetched both from that repository: _remote.repositories names
#    oxmcp-local for each jar and pom, and each jar in the local repository is dist's.
# Ends with Surefire's summary line; exits non-zero on failure. JUnit and the Maven plugins come
# from Maven Central (or the local repository's cache of it).
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
WORK="$(realpath -m "$WORK")"
case "$WORK/" in
  "$root"/*) log "WORK ($WORK) must be outside the workspace"; exit 1 ;;
esac
# The library must come out of the jar: nothing may name another.
unset OXMCP_JAVA_LIBRARY CARGO_TARGET_DIR

files=("$DIST/oxmcp-$VERSION.jar" "$DIST/oxmcp-$VERSION.pom" "$DIST/oxmcp-$VERSION-sources.jar" "$DIST/oxmcp-$VERSION-javadoc.jar"
  "$DIST/oxmcp-kotlin-$VERSION.jar" "$DIST/oxmcp-kotlin-$VERSION.pom" "$DIST/oxmcp-kotlin-$VERSION-sources.jar")
for f in "${files[@]}"; do
  [[ -f "$f" ]] || { log "missing $f"; exit 1; }
done

REPO_ID=oxmcp-local
REMOTE="$WORK/remote"
LOCAL="$HOME/.m2/repository"
SETTINGS="$WORK/settings.xml"
mvn=(mvn -B -ntp -Dstyle.color=never -s "$SETTINGS" -Dmaven.repo.local="$LOCAL")
cat >"$SETTINGS" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by tests/packages/java/run.sh: the repository dev.oxmcp:oxmcp is published to. -->
<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">
  <profiles>
    <profile>
      <id>$REPO_ID</id>
      <repositories>
        <repository>
          <id>$REPO_ID</id>
          <url>file://$REMOTE</url>
          <releases><enabled>true</enabled><checksumPolicy>fail</checksumPolicy></releases>
          <snapshots><enabled>false</enabled></snapshots>
        </repository>
      </repositories>
    </profile>
  </profiles>
  <activeProfiles>
    <activeProfile>$REPO_ID</activeProfile>
  </activeProfiles>
</settings>
EOF

cd "$WORK"
# Both artifacts: dev.oxmcp:oxmcp (Java) and dev.oxmcp:oxmcp-kotlin.
deploy() { # deploy ARTIFACT [-Djavadoc=FILE]
  local artifact="$1"
  shift
  log "mvn deploy:deploy-file $artifact-$VERSION.jar -> file://$REMOTE"
  "${mvn[@]}" -q org.apache.maven.plugins:maven-deploy-plugin:3.1.2:deploy-file \
    -Durl="file://$REMOTE" -DrepositoryId="$REPO_ID" -Dfile="$DIST/$artifact-$VERSION.jar" \
    -DpomFile="$DIST/$artifact-$VERSION.pom" -Dsources="$DIST/$artifact-$VERSION-sources.jar" "$@"
  for suffix in .jar .pom -sources.jar; do
    local f="$REMOTE/dev/oxmcp/$artifact/$VERSION/$artifact-$VERSION$suffix"
    [[ -f "$f" && -f "$f.sha1" ]] || { log "deploy-file left no $f (or its .sha1)"; exit 1; }
  done
}
deploy oxmcp -Djavadoc="$DIST/oxmcp-$VERSION-javadoc.jar"
deploy oxmcp-kotlin

# Whatever an earlier run put in the local repository would be used without asking the
# repository: the build must fetch it.
rm -rf "$LOCAL/dev/oxmcp/oxmcp/$VERSION" "$LOCAL/dev/oxmcp/oxmcp-kotlin/$VERSION"

mkdir -p "$WORK/consumer"
cp -r "$here/pom.xml" "$here/src" "$WORK/consumer/"
log "mvn -s $SETTINGS test in $WORK/consumer"
set +e
(cd "$WORK/consumer" && "${mvn[@]}" test -Doxmcp.version="$VERSION") 2>&1 | tee "$WORK/mvn.log"
status=${PIPESTATUS[0]}
set -e

# Fetched from the repository: the resolver records where each file came from.
fetched_from_repository() {
  local artifact cached marks f
  for artifact in oxmcp oxmcp-kotlin; do
    cached="$LOCAL/dev/oxmcp/$artifact/$VERSION"
    marks="$cached/_remote.repositories"
    [[ -f "$marks" ]] || { log "no $marks: dev.oxmcp:$artifact:$VERSION was not fetched"; return 1; }
    for f in "$artifact-$VERSION.jar" "$artifact-$VERSION.pom"; do
      grep -qxF "$f>$REPO_ID=" "$marks" \
        || { log "$marks does not say $f came from $REPO_ID:"; cat "$marks" >&2; return 1; }
    done
    cmp -s "$DIST/$artifact-$VERSION.jar" "$cached/$artifact-$VERSION.jar" \
      || { log "$cached/$artifact-$VERSION.jar is not $DIST/$artifact-$VERSION.jar"; return 1; }
    log "dev.oxmcp:$artifact:$VERSION came from $REPO_ID (file://$REMOTE)"
  done
}
if [[ $status -eq 0 ]] && ! fetched_from_repository; then
  status=1
fi
# Surefire's summary line, last (on its own line: Maven may end without a newline).
echo
grep -E '^\[(INFO|ERROR|WARNING)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$WORK/mvn.log" \
  | tail -1 | sed 's/^\[[A-Z]*\] //' || true
exit "$status"
