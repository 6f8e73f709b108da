#!/usr/bin/env bash
# The NuGet package as a user gets it, from a package feed, under mono (no .NET SDK, no Rust
# toolchain):
#
#   DIST=/abs/dist VERSION=0.1.0 WORK=/empty/scratch OXMCP=/path/to/oxmcp bash tests/packages/dotnet/run.sh
#
# 1. the layout of $DIST/OxMcp.$VERSION.nupkg: the nuspec (id, version, license expression,
#    the netstandard2.0 group), lib/netstandard2.0/OxMcp.dll and its XML documentation,
#    runtimes/linux-x64/native/liboxmcp.so, and the Open Packaging parts ([Content_Types].xml
#    covering every file's extension, _rels/.rels pointing at the nuspec and the core
#    properties, the .psmdcp);
# 2. a local folder feed, $WORK/feed (the nupkg copied in: the layout NuGet reads from a
#    folder source), and a consumer project, $WORK/consumer, whose packages.config names
#    OxMcp $VERSION and whose NuGet.Config has that feed as its only source; `nuget restore`
#    (Debian's NuGet 2.8, without its machine cache) must put the feed's package in
#    consumer/packages/OxMcp.$VERSION; then bindings-dotnet/examples/Quickstart.cs (copied
#    into the project) is compiled with `mcs -r:packages/OxMcp.$VERSION/lib/netstandard2.0/OxMcp.dll`;
# 3. runs it the way .NET lays out a program that references the package: OxMcp.dll and
#    liboxmcp.so copied beside the .exe (mono's DllImport("oxmcp") looks beside the
#    assembly); then once more with the native library left in the restored package and found
#    through LD_LIBRARY_PATH=packages/OxMcp.$VERSION/runtimes/linux-x64/native, the other way
#    mono users take; each run against `$OXMCP everything-server --stdio` must print "hello
#    from C#" and "cancelled" and exit by itself;
# 4. checks the assembly's informational version (and the native library's oxmcp_version())
#    is $VERSION, with a small C# program.
# mono and nuget come from /usr/bin (apt-get install mono-mcs mono-runtime nuget when
# missing). Everything is written under $WORK. Prints a line per check, ends with
# "N passed, M failed".
set -uo pipefail

: "${DIST:?}" "${VERSION:?}" "${WORK:?}" "${OXMCP:?}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"

source "$HERE/../checks.sh"
cd "$WORK" || exit 1

if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1 || ! command -v nuget >/dev/null 2>&1; then
  echo "installing mono and nuget (apt-get install mono-mcs mono-runtime nuget)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime nuget) >/dev/null 2>&1
fi
check "mono, mcs and nuget are available" bash -c 'command -v mcs && command -v mono && command -v nuget'

NUPKG="$DIST/OxMcp.$VERSION.nupkg"

# --- 1. layout -------------------------------------------------------------------------------
layout_ok() {
  python3 - "$NUPKG" "$VERSION" <<'PY'
import sys
import zipfile
import xml.etree.ElementTree as ET

path, version = sys.argv[1], sys.argv[2]
problems = []
def need(ok, what):
    print(("ok   " if ok else "MISS ") + what)
    if not ok:
        problems.append(what)


zf = zipfile.ZipFile(path)
names = zf.namelist()
need(zf.testzip() is None, "every entry's CRC is right")
need(len(names) == len(set(names)), "no duplicate entries")
for n in ["OxMcp.nuspec", "lib/netstandard2.0/OxMcp.dll", "lib/netstandard2.0/OxMcp.xml",
          "runtimes/linux-x64/native/liboxmcp.so", "[Content_Types].xml", "_rels/.rels", "README.md"]:
    need(n in names, "entry " + n)
props = [n for n in names if n.startswith("package/services/metadata/core-properties/") and n.endswith(".psmdcp")]
need(len(props) == 1, "one package/services/metadata/core-properties/*.psmdcp")
need(not any(n.startswith("/") or ".." in n.split("/") or "\\" in n for n in names), "no absolute or escaping paths")

NS = "{http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd}"
meta = ET.fromstring(zf.read("OxMcp.nuspec")).find(NS + "metadata")
need(meta is not None, "nuspec <metadata> in the 2013/05 nuspec namespace")
if meta is not None:
    text = lambda tag: (meta.findtext(NS + tag) or "").strip()
    need(text("id") == "OxMcp", "nuspec id OxMcp (%r)" % text("id"))
    need(text("version") == version, "nuspec version %s (%r)" % (version, text("version")))
    lic = meta.find(NS + "license")
    need(lic is not None and lic.get("type") == "expression" and lic.text == "MIT OR Apache-2.0",
         "nuspec license expression MIT OR Apache-2.0")
    need(bool(text("authors")) and bool(text("description")), "nuspec authors and description")
    need(text("readme") in names, "nuspec readme is in the package")
    groups = meta.findall(NS + "dependencies/" + NS + "group")
    need([g.get("targetFramework") for g in groups] == [".NETStandard2.0"], "dependencies group .NETStandard2.0")

ct = ET.fromstring(zf.read("[Content_Types].xml"))
CT = "{http://schemas.openxmlformats.org/package/2006/content-types}"
defaults = {d.get("Extension").lower(): d.get("ContentType") for d in ct.findall(CT + "Default")}
overrides = {o.get("PartName") for o in ct.findall(CT + "Override")}
for n in names:
    if n == "[Content_Types].xml":
        continue
    ext = n.rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower() if "." in n.rsplit("/", 1)[-1] else ""
    need(ext in defaults or "/" + n in overrides, "content type for " + n)
need(defaults.get("rels") == "application/vnd.openxmlformats-package.relationships+xml", "rels content type")
need(defaults.get("psmdcp") == "application/vnd.openxmlformats-package.core-properties+xml", "psmdcp content type")

RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
rels = {r.get("Type"): r.get("Target") for r in ET.fromstring(zf.read("_rels/.rels")).findall(RELS + "Relationship")}
need(rels.get("http://schemas.microsoft.com/packaging/2010/07/manifest") == "/OxMcp.nuspec", ".rels manifest -> /OxMcp.nuspec")
need(props and rels.get("http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties") == "/" + props[0],
     ".rels core-properties -> the .psmdcp")
if props:
    cp = ET.fromstring(zf.read(props[0]))
    DC = "{http://purl.org/dc/elements/1.1/}"
    CP = "{http://schemas.openxmlformats.org/package/2006/metadata/core-properties}"
    need(cp.findtext(DC + "identifier") == "OxMcp" and cp.findtext(CP + "version") == version,
         "core properties: identifier OxMcp, version " + version)

so = zf.read("runtimes/linux-x64/native/liboxmcp.so")
need(so[:4] == b"\x7fELF" and so[4] == 2 and so[18] == 62, "liboxmcp.so is a 64-bit x86-64 ELF")
dll = zf.read("lib/netstandard2.0/OxMcp.dll")
need(dll[:2] == b"MZ", "OxMcp.dll is a PE file")
doc = ET.fromstring(zf.read("lib/netstandard2.0/OxMcp.xml"))
need(doc.findtext("assembly/name") == "OxMcp" and len(doc.findall("members/member")) > 50,
     "OxMcp.xml documents the OxMcp assembly")
for p in problems:
    print("MISSING: " + p)
sys.exit(1 if problems else 0)
PY
}
check "nupkg layout ($(basename "$NUPKG"))" layout_ok || summary

# --- 2. restore from a feed and compile ------------------------------------------------------
FEED="$WORK/feed"
PROJECT="$WORK/consumer"
PKG="$PROJECT/packages/OxMcp.$VERSION" # where nuget restore puts it (packages.config layout)
mkdir -p "$FEED" "$PROJECT"
cp "$NUPKG" "$FEED/"
cat >"$PROJECT/packages.config" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<packages>
  <package id="OxMcp" version="$VERSION" targetFramework="net461" />
</packages>
EOF
cat >"$PROJECT/NuGet.Config" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="oxmcp-local" value="$FEED" />
  </packageSources>
</configuration>
EOF
restore_ok() {
  (cd "$PROJECT" && nuget restore packages.config -PackagesDirectory packages -ConfigFile NuGet.Config \
    -NoCache -NonInteractive -Verbosity detailed) || return 1
  # The package the feed holds, not one from elsewhere.
  cmp "$NUPKG" "$PKG/OxMcp.$VERSION.nupkg" && ls -R "$PKG"
}
check "nuget restore packages.config: OxMcp $VERSION from the feed $FEED" restore_ok || summary
cp "$REPO/bindings-dotnet/examples/Quickstart.cs" "$PROJECT/Quickstart.cs"
cat >"$PROJECT/Version.cs" <<'EOF'
// Prints the OxMcp assembly's informational version, its assembly version, and the version
// of the native library it loads.
using System;
using System.Reflection;
using System.Runtime.InteropServices;

internal static class VersionCheck
{
    [DllImport("oxmcp")] private static extern IntPtr oxmcp_version();

    private static void Main()
    {
        Assembly oxmcp = typeof(OxMcp.McpClient).Assembly;
        Console.WriteLine(oxmcp.GetCustomAttribute<AssemblyInformationalVersionAttribute>().InformationalVersion);
        Console.WriteLine(oxmcp.GetName().Version);
        Console.WriteLine(Marshal.PtrToStringAnsi(oxmcp_version()));
    }
}
EOF
LIB="$PKG/lib/netstandard2.0"
NATIVE_DIR="$PKG/runtimes/linux-x64/native"
APP="$WORK/app"          # OxMcp.dll and liboxmcp.so beside the program
APP_LDPATH="$WORK/app-ld" # OxMcp.dll beside the program, liboxmcp.so via LD_LIBRARY_PATH
mkdir -p "$APP" "$APP_LDPATH"
check "mcs Quickstart.cs -r:packages/OxMcp.$VERSION/lib/netstandard2.0/OxMcp.dll" \
  mcs -langversion:7.2 -warnaserror -r:"$LIB/OxMcp.dll" -out:"$APP/Quickstart.exe" "$PROJECT/Quickstart.cs"
check "mcs Version.cs -r:packages/OxMcp.$VERSION/lib/netstandard2.0/OxMcp.dll" \
  mcs -langversion:7.2 -warnaserror -r:"$LIB/OxMcp.dll" -out:"$APP/Version.exe" "$PROJECT/Version.cs"
cp "$LIB/OxMcp.dll" "$NATIVE_DIR/liboxmcp.so" "$APP/"
cp "$LIB/OxMcp.dll" "$APP/Quickstart.exe" "$APP/Version.exe" "$APP_LDPATH/" 2>/dev/null

# --- 3. run ----------------------------------------------------------------------------------
quickstart_ok() { # quickstart_ok DIR [LD_LIBRARY_PATH]
  local out
  out="$(LD_LIBRARY_PATH="${2:-}" timeout 120 mono "$1/Quickstart.exe" "$OXMCP")"
  local rc=$?
  echo "$out"
  [[ $rc -eq 124 ]] && { echo "mono did not exit within 120 s"; return 1; }
  [[ $rc -eq 0 ]] || { echo "exit $rc"; return 1; }
  grep -q 'hello from C#' <<<"$out" && grep -qx 'cancelled' <<<"$out"
}
check "Quickstart.exe, liboxmcp.so beside it, against everything-server" quickstart_ok "$APP"
quickstart_ld_path_ok() { [[ ! -e "$APP_LDPATH/liboxmcp.so" ]] && quickstart_ok "$APP_LDPATH" "$NATIVE_DIR"; }
check "Quickstart.exe, liboxmcp.so on LD_LIBRARY_PATH, against everything-server" quickstart_ld_path_ok

# --- 4. versions -----------------------------------------------------------------------------
versions_ok() {
  local out
  out="$(timeout 60 mono "$APP/Version.exe")" || { echo "exit $?"; return 1; }
  echo "$out"
  local info asm native
  { read -r info; read -r asm; read -r native; } <<<"$out"
  [[ "$info" == "$VERSION" && "$asm" == "${VERSION%%[-+]*}.0" && "$native" == "$VERSION" ]]
}
check "informational version $VERSION, assembly version ${VERSION%%[-+]*}.0, native oxmcp_version() $VERSION" versions_ok

summary
