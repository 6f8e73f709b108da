# Sourced by java.sh and kotlin.sh: a binding's jar built with its Maven `package` profile
# around a tree of native libraries, installed into the local Maven repository and checked.
#
# package_jar NAME MODULE ARTIFACT SUBTREE HOST_FOLDER LIB
#   NAME         for the log (java, kotlin)
#   MODULE       the Maven project's folder
#   ARTIFACT     its artifactId: the jar is target/package/ARTIFACT-$VERSION.jar
#   SUBTREE      the folder of OXMCP_NATIVES (scripts/release.sh) holding every platform's
#                library in the jar's layout; without OXMCP_NATIVES, this platform's release
#                build alone:
#   HOST_FOLDER  where in the jar this platform's library goes (native/linux-x86_64, ...)
#   LIB          its file in the release build ($NATIVE/...)
# Sets `natives` (the tree put in the jar), `out` and `jar`.
package_jar() {
  local name="$1" module="$2" artifact="$3" subtree="$4" host_folder="$5" lib="$6" file
  local tree="${OXMCP_NATIVES:+$OXMCP_NATIVES/$subtree}"
  [[ -n "$tree" || -f "$lib" ]] || { log "$name: no $lib: build the release libraries first"; exit 1; }
  for tool in java mvn unzip; do
    command -v "$tool" >/dev/null 2>&1 || { log "$name: missing required tool: $tool"; exit 1; }
  done
  # The dev suite builds in the same folder: take turns with it.
  exec 9>"$module/.run-tests.lock"
  flock 9
  natives="$module/target/package-native"
  rm -rf "$natives" "$module/target/package"
  if [[ -n "$tree" ]]; then
    cp -r "$tree" "$natives"
  else
    mkdir -p "$natives/$host_folder"
    cp "$lib" "$natives/$host_folder/"
  fi
  log "$name: mvn -Ppackage install ($VERSION)"
  (cd "$module" && mvn -B -ntp -Dstyle.color=never -Ppackage \
    -Drevision="$VERSION" -Doxmcp.native.dir="$natives" -Dmaven.test.skip=true install)
  out="$module/target/package"
  jar="$out/$artifact-$VERSION.jar"
  # What a consumer gets: every library inside, the version in the manifest and the pom.
  for file in $(cd "$natives" && find . -type f | sed 's|^\./||'); do
    unzip -l "$jar" "$file" >/dev/null || { log "$name: $jar lacks $file"; exit 1; }
  done
  unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | grep -qx "Implementation-Version: $VERSION" \
    || { log "$name: the manifest of $jar lacks Implementation-Version: $VERSION"; exit 1; }
  grep -q "<version>$VERSION</version>" "$out/.flattened-pom.xml" \
    || { log "$name: the installed pom does not carry version $VERSION"; exit 1; }
}
