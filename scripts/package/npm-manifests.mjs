// Writes the package.json of the two npm packages from bindings-node/package.json:
// `oxmcp` without the addon, depending optionally on the platform package, and the
// platform package holding the addon. Both carry the given version.
// Usage: node npm-manifests.mjs SOURCE_PACKAGE_JSON VERSION MAIN_DIR PLATFORM_DIR ADDON_FILE
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const [source, version, mainDir, platformDir, addon] = process.argv.slice(2)
const dev = JSON.parse(readFileSync(source, 'utf8'))
// napi-rs's loader (native.cjs) requires `<name>-<platform>-<arch>-<abi>` when no addon
// sits beside it.
const platformName = `${dev.name}-linux-x64-gnu`

const main = { ...dev, version }
delete main.devDependencies
delete main.scripts
main.files = dev.files.filter(f => !f.endsWith('.node'))
main.optionalDependencies = { [platformName]: version }
writeFileSync(path.join(mainDir, 'package.json'), JSON.stringify(main, null, 2) + '\n')

const platform = {
  name: platformName,
  version,
  description: `The native addon of ${dev.name} for Linux x86_64 (glibc 2.17 and later).`,
  license: dev.license,
  main: addon,
  files: [addon],
  os: ['linux'],
  cpu: ['x64'],
  libc: ['glibc'],
  engines: dev.engines,
}
writeFileSync(path.join(platformDir, 'package.json'), JSON.stringify(platform, null, 2) + '\n')
