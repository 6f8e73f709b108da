// Writes the package.json of the npm packages from bindings-node/package.json, at the given
// version:
//   main DIR               `oxmcp` without an addon, naming every platform package below as
//                          an optional dependency (npm installs the one whose os, cpu and
//                          libc match, and skips the others)
//   platform DIR NAME      the platform package `oxmcp-NAME`, holding `oxmcp.NAME.node`
// Usage: node npm-manifests.mjs SOURCE_PACKAGE_JSON VERSION main DIR
//        node npm-manifests.mjs SOURCE_PACKAGE_JSON VERSION platform DIR NAME
//        node npm-manifests.mjs SOURCE_PACKAGE_JSON VERSION names   (prints NAME os cpu libc)
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

// The names are the ones napi-rs's loader (native.cjs) requires, `<name>-<platform>-<arch>
// [-<abi>]`. Windows is `msvc` although the addon is linked with mingw: Node for Windows is
// built with MSVC, and for it the loader asks for the msvc package; the addon's C ABI (N-API)
// is the same either way.
const platforms = {
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc', what: 'Linux x86_64 (glibc 2.17 and later)' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc', what: 'Linux arm64 (glibc 2.17 and later)' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl', what: 'Linux x86_64 with musl (Alpine)' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl', what: 'Linux arm64 with musl (Alpine)' },
  'darwin-x64': { os: 'darwin', cpu: 'x64', what: 'macOS x86_64 (10.12 and later)' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64', what: 'macOS arm64 (11 and later)' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64', what: 'Windows x64' },
}

const [source, version, what, dir, name] = process.argv.slice(2)
const dev = JSON.parse(readFileSync(source, 'utf8'))
const write = manifest => writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')

if (what === 'names') {
  for (const [n, p] of Object.entries(platforms)) console.log(`${n} ${p.os} ${p.cpu} ${p.libc ?? '-'}`)
} else if (what === 'main') {
  const main = { ...dev, version }
  delete main.devDependencies
  delete main.scripts
  main.files = dev.files.filter(f => !f.endsWith('.node'))
  main.optionalDependencies = Object.fromEntries(Object.keys(platforms).map(n => [`${dev.name}-${n}`, version]))
  write(main)
} else if (what === 'platform' && platforms[name]) {
  const p = platforms[name]
  const addon = `${dev.napi.binaryName}.${name}.node`
  write({
    name: `${dev.name}-${name}`,
    version,
    description: `The native addon of ${dev.name} for ${p.what}.`,
    license: dev.license,
    main: addon,
    files: [addon],
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    engines: dev.engines,
  })
} else {
  console.error(`npm-manifests: want 'names', 'main DIR' or 'platform DIR NAME' (one of ${Object.keys(platforms).join(', ')})`)
  process.exit(2)
}
