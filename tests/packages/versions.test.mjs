// One version for every artifact: the workspace's (Cargo.toml, [workspace.package]). Each
// artifact's own metadata is read the way its package manager reads it, and dist/ holds
// nothing built at another version.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const here = path.dirname(new URL(import.meta.url).pathname)
const root = path.resolve(here, '../..')
const dist = process.env.OXMCP_DIST ?? path.join(root, 'dist')
const version = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))[1]
const at = file => path.join(dist, file)
const unzip = (archive, member) => execFileSync('unzip', ['-p', at(archive), member], { encoding: 'utf8' })
const untar = (archive, member) => execFileSync('tar', ['-xzOf', at(archive), member], { encoding: 'utf8' })
const field = (text, re, what) => {
  const m = re.exec(text)
  assert.ok(m, `no ${what}`)
  return m[1]
}

test('dist/ holds each artifact once, at the workspace version', () => {
  const files = readdirSync(dist).filter(f => !f.startsWith('.'))
  const versioned = files.filter(f => /\d+\.\d+\.\d+/.test(f))
  for (const f of versioned) assert.ok(f.includes(`-${version}`) || f.includes(`.${version}.`), `${f} carries another version`)
  const expected = [
    /^oxmcp-[^-]+-cp39-abi3-[a-z0-9_.]*manylinux_2_17_x86_64[a-z0-9_.]*\.whl$/, /^oxmcp-[^-]+\.tar\.gz$/,
    /^oxmcp-[^-]+\.tgz$/, /^oxmcp-linux-x64-gnu-[^-]+\.tgz$/,
    /^oxmcp-[^-]+\.jar$/, /^oxmcp-[^-]+-sources\.jar$/, /^oxmcp-[^-]+-javadoc\.jar$/, /^oxmcp-[^-]+\.pom$/,
    /^oxmcp-kotlin-[^-]+\.jar$/, /^oxmcp-kotlin-[^-]+-sources\.jar$/, /^oxmcp-kotlin-[^-]+\.pom$/,
    /^OxMcp\.\d.*\.nupkg$/, /^oxmcp-c-[^-]+-linux-x86_64\.tar\.gz$/, /^oxmcp$/,
  ]
  for (const re of expected) assert.equal(files.filter(f => re.test(f)).length, 1, `one file like ${re} in ${files.join(' ')}`)
})

test('Python: the wheel and the sdist', () => {
  const wheel = readdirSync(dist).find(f => f.endsWith('.whl'))
  assert.equal(field(unzip(wheel, `oxmcp-${version}.dist-info/METADATA`), /^Version: (.+)$/m, 'Version'), version)
  assert.equal(field(untar(`oxmcp-${version}.tar.gz`, `oxmcp-${version}/PKG-INFO`), /^Version: (.+)$/m, 'Version'), version)
})

test('npm: the package, its optional platform package, and the link between them', () => {
  const main = JSON.parse(untar(`oxmcp-${version}.tgz`, 'package/package.json'))
  const platform = JSON.parse(untar(`oxmcp-linux-x64-gnu-${version}.tgz`, 'package/package.json'))
  assert.equal(main.version, version)
  assert.equal(platform.version, version)
  // Every platform's package at this version, the one built here among them.
  const names = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc']
  assert.deepEqual(main.optionalDependencies, Object.fromEntries(names.map(n => [`oxmcp-${n}`, version])))
  assert.deepEqual([platform.os, platform.cpu, platform.libc], [['linux'], ['x64'], ['glibc']])
  // The sources of both: the binding's package.json says the same.
  assert.equal(JSON.parse(readFileSync(path.join(root, 'bindings-node/package.json'), 'utf8')).version, version)
})

test('Java: the jar’s manifest and Maven metadata, and the pom', () => {
  const jar = `oxmcp-${version}.jar`
  assert.equal(field(unzip(jar, 'META-INF/MANIFEST.MF'), /^Implementation-Version: (\S+)/m, 'Implementation-Version'), version)
  assert.equal(field(unzip(jar, 'META-INF/maven/dev.oxmcp/oxmcp/pom.properties'), /^version=(\S+)/m, 'version'), version)
  const pom = readFileSync(at(`oxmcp-${version}.pom`), 'utf8')
  assert.equal(field(pom, /<artifactId>oxmcp<\/artifactId>\s*<version>([^<]+)<\/version>/, 'the project version'), version)
  // The binding's pom says the same when built without -Drevision (its own tests).
  const source = readFileSync(path.join(root, 'bindings-java/pom.xml'), 'utf8')
  assert.equal(field(source, /<revision>([^<]+)<\/revision>/, '<revision>'), version)
})

test('Kotlin: the jar’s manifest and Maven metadata, and the pom', () => {
  const jar = `oxmcp-kotlin-${version}.jar`
  assert.equal(field(unzip(jar, 'META-INF/MANIFEST.MF'), /^Implementation-Version: (\S+)/m, 'Implementation-Version'), version)
  assert.equal(field(unzip(jar, 'META-INF/maven/dev.oxmcp/oxmcp-kotlin/pom.properties'), /^version=(\S+)/m, 'version'), version)
  const pom = readFileSync(at(`oxmcp-kotlin-${version}.pom`), 'utf8')
  assert.equal(field(pom, /<artifactId>oxmcp-kotlin<\/artifactId>\s*<version>([^<]+)<\/version>/, 'the project version'), version)
  const source = readFileSync(path.join(root, 'bindings-kotlin/pom.xml'), 'utf8')
  assert.equal(field(source, /<revision>([^<]+)<\/revision>/, '<revision>'), version)
})

test('.NET: the nuspec', () => {
  const nuspec = unzip(`OxMcp.${version}.nupkg`, 'OxMcp.nuspec')
  assert.equal(field(nuspec, /<version>([^<]+)<\/version>/, '<version>'), version)
})

test('C: pkg-config and CMake', () => {
  const c = `oxmcp-c-${version}-linux-x86_64.tar.gz`
  const top = `oxmcp-c-${version}`
  assert.equal(field(untar(c, `${top}/lib/pkgconfig/oxmcp.pc`), /^Version: (.+)$/m, 'Version'), version)
  assert.equal(field(untar(c, `${top}/lib/cmake/oxmcp/oxmcpConfigVersion.cmake`), /set\(PACKAGE_VERSION "([^"]+)"\)/, 'PACKAGE_VERSION'), version)
})

test('the CLI', () => {
  assert.equal(execFileSync(at('oxmcp'), ['--version'], { encoding: 'utf8' }).trim(), `oxmcp ${version}`)
})
