#!/usr/bin/env bash
# The C# library as a NuGet package, made without the .NET SDK:
#
#   bash scripts/package/dotnet.sh    ->  dist/OxMcp.$VERSION.nupkg
#
# OxMcp.dll is compiled with mono's mcs (C# 7.2, optimized) from bindings-dotnet/OxMcp/*.cs
# plus an AssemblyInfo made here, which stamps $VERSION (AssemblyVersion and
# AssemblyFileVersion take its numeric part); nothing in the tree carries the version.
# The package holds:
#   OxMcp.nuspec                                  id OxMcp, version $VERSION, MIT OR Apache-2.0
#   README.md                                     the package's readme
#   lib/netstandard2.0/OxMcp.dll, OxMcp.xml       the assembly and its XML documentation
#   runtimes/linux-x64/native/liboxmcp.so         the release C ABI library ($NATIVE); with
#                                                 OXMCP_NATIVES, runtimes/<rid>/native/ of
#                                                 every platform (osx-arm64/liboxmcp.dylib,
#                                                 win-x64/oxmcp.dll, ...)
#   [Content_Types].xml, _rels/.rels, package/services/metadata/core-properties/*.psmdcp
# The zip is written by Python's zipfile below: Debian's `nuget pack` (2.8) refuses nuspecs
# with a license expression (its nuspec schema predates <license>), though its `nuget restore`
# reads the package (tests/packages/dotnet/run.sh restores it so). The assembly references
# mscorlib, System and System.Core, mcs's defaults (it has no netstandard reference
# assemblies), which .NET Framework 4.6.1+, .NET Core/.NET 5+ and mono all resolve.
# tests/packages/dotnet/run.sh checks the layout and builds and runs a program against it.
source "$(dirname "$0")/common.sh"

NUPKG="$DIST/OxMcp.$VERSION.nupkg"
# OXMCP_NATIVES (scripts/release.sh): a tree whose nuget/runtimes/<rid>/native/ folders hold
# every platform's library; without it, this platform's release build alone.
tree="${OXMCP_NATIVES:+$OXMCP_NATIVES/nuget}"
[[ -n "$tree" || -f "$NATIVE/liboxmcp.so" ]] || { log "dotnet: $NATIVE/liboxmcp.so is missing (build the release libraries first)"; exit 1; }
if ! command -v mcs >/dev/null 2>&1; then
  log "dotnet: apt-get install mono-mcs mono-runtime"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime) >/dev/null
fi

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
PKG="$STAGE/pkg"
mkdir -p "$PKG/lib/netstandard2.0" "$PKG/runtimes/linux-x64/native"

# --- the assembly ----------------------------------------------------------------------------
numeric="${VERSION%%[-+]*}" # 1.2.3-rc.1 -> 1.2.3: assembly versions are four numbers
cat >"$STAGE/AssemblyInfo.cs" <<EOF
// Made by scripts/package/dotnet.sh for the package; not part of the sources.
using System.Reflection;

[assembly: AssemblyTitle("OxMcp")]
[assembly: AssemblyProduct("oxmcp")]
[assembly: AssemblyDescription("Model Context Protocol clients and servers for .NET on the oxmcp engine")]
[assembly: AssemblyVersion("$numeric.0")]
[assembly: AssemblyFileVersion("$numeric.0")]
[assembly: AssemblyInformationalVersion("$VERSION")]
EOF
mcs -langversion:7.2 -target:library -optimize+ -debug- -warnaserror -nowarn:1591 \
  -doc:"$PKG/lib/netstandard2.0/OxMcp.xml" -out:"$PKG/lib/netstandard2.0/OxMcp.dll" \
  "$ROOT"/bindings-dotnet/OxMcp/*.cs "$STAGE/AssemblyInfo.cs"
chmod 0644 "$PKG/lib/netstandard2.0/OxMcp.dll"
if [[ -n "$tree" ]]; then
  cp -r "$tree/runtimes" "$PKG/"
else
  install -m 0755 "$NATIVE/liboxmcp.so" "$PKG/runtimes/linux-x64/native/"
fi

# --- metadata --------------------------------------------------------------------------------
rids="$(cd "$PKG/runtimes" && echo * | sed 's/ /, /g')"
cat >"$PKG/OxMcp.nuspec" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
  <metadata>
    <id>OxMcp</id>
    <version>$VERSION</version>
    <title>OxMcp</title>
    <authors>The oxmcp authors</authors>
    <requireLicenseAcceptance>false</requireLicenseAcceptance>
    <license type="expression">MIT OR Apache-2.0</license>
    <licenseUrl>https://licenses.nuget.org/MIT%20OR%20Apache-2.0</licenseUrl>
    <readme>README.md</readme>
    <description>Model Context Protocol (MCP) clients and servers for .NET: stdio and Streamable HTTP, both protocol eras, cancellation, progress, tasks, skills and OAuth, on the native oxmcp engine (included for $rids).</description>
    <tags>mcp model-context-protocol json-rpc ai llm</tags>
    <dependencies>
      <group targetFramework=".NETStandard2.0" />
    </dependencies>
  </metadata>
</package>
EOF
cat >"$PKG/README.md" <<EOF
# OxMcp $VERSION

Model Context Protocol clients and servers for C#, on the native oxmcp engine: the engine
does JSON-RPC, validation, cancellation, timeouts and the transports (stdio, Streamable
HTTP); OxMcp maps them to \`Task\`, \`CancellationToken\`, \`IDisposable\` and \`McpException\`.

The package carries the native library for $rids (Linux with glibc 2.17 or newer):
\`runtimes/<rid>/native/\` (\`liboxmcp.so\`, \`liboxmcp.dylib\`, \`oxmcp.dll\`). .NET copies
the one for its runtime beside your program; under mono, put it beside the program or on
the library path (\`DllImport("oxmcp")\` finds it there).

\`\`\`csharp
using (McpClient client = await McpClient.ConnectStdioAsync("oxmcp", new[] { "everything-server", "--stdio" }))
{
    Console.WriteLine((await client.CallToolAsync("echo", new { text = "hello" })).Text);
}
McpRuntime.ShutdownDefault(); // stops the native threads before the process exits
\`\`\`

Servers: \`new McpServer(name, version)\`, \`WithTools(instance)\` for \`[McpTool]\` methods (schemas
from their types) or \`AddTool\`, \`AddResource\`, \`AddPrompt\`, then \`ServeStdioAsync()\` or
\`StartHttp()\`. License: MIT OR Apache-2.0.
EOF

# --- the package (an OPC zip) ----------------------------------------------------------------
mkdir -p "$DIST"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}"
python3 - "$PKG" "$NUPKG.tmp" "$epoch" <<'PY'
"""Writes a NuGet package: the files of a directory plus the Open Packaging parts NuGet reads."""
import hashlib
import os
import sys
import time
import zipfile
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

src, out, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
NS = "{http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd}"
nuspecs = [f for f in os.listdir(src) if f.endswith(".nuspec")]
assert len(nuspecs) == 1, nuspecs
meta = ET.parse(os.path.join(src, nuspecs[0])).getroot().find(NS + "metadata")
field = lambda name: (meta.findtext(NS + name) or "").strip()
pkg_id, version = field("id"), field("version")

files = sorted(
    os.path.relpath(os.path.join(d, f), src).replace(os.sep, "/")
    for d, _, fs in os.walk(src)
    for f in fs
)
# A name derived from the package, so the same inputs give the same zip.
props = "package/services/metadata/core-properties/%s.psmdcp" % hashlib.sha256(
    ("%s %s" % (pkg_id, version)).encode()).hexdigest()[:32]

extensions = sorted({f.rsplit(".", 1)[1].lower() for f in files if "." in f.rsplit("/", 1)[-1]})
content_types = ['<?xml version="1.0" encoding="utf-8"?>',
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">',
                 '  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />',
                 '  <Default Extension="psmdcp" ContentType="application/vnd.openxmlformats-package.core-properties+xml" />']
content_types += ['  <Default Extension="%s" ContentType="application/octet" />' % e for e in extensions]
content_types.append("</Types>")

rels = """<?xml version="1.0" encoding="utf-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/%s" Id="R%s" />
  <Relationship Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="/%s" Id="R%s" />
</Relationships>
""" % (nuspecs[0], hashlib.sha256(b"manifest").hexdigest()[:16], props, hashlib.sha256(b"props").hexdigest()[:16])

core = """<?xml version="1.0" encoding="utf-8"?>
<coreProperties xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.openxmlformats.org/package/2006/metadata/core-properties">
  <dc:creator>%s</dc:creator>
  <dc:description>%s</dc:description>
  <dc:identifier>%s</dc:identifier>
  <version>%s</version>
  <keywords>%s</keywords>
  <lastModifiedBy>oxmcp scripts/package/dotnet.sh</lastModifiedBy>
</coreProperties>
""" % tuple(escape(field(n)) for n in ("authors", "description", "id", "version", "tags"))

stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip dates start in 1980


def add(zf, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, stamp)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | mode) << 16
    zf.writestr(info, data)


with zipfile.ZipFile(out, "w") as zf:
    add(zf, "_rels/.rels", rels)
    for f in files:
        path = os.path.join(src, f)
        with open(path, "rb") as fh:
            add(zf, f, fh.read(), os.stat(path).st_mode & 0o777)
    add(zf, props, core)
    add(zf, "[Content_Types].xml", "\n".join(content_types) + "\n")
PY
mv "$NUPKG.tmp" "$NUPKG"
log "dotnet: $NUPKG ($(du -h "$NUPKG" | cut -f1))"
