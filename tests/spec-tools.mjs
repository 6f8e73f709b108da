// Validates tools a server derived from its host's types (C#'s attributed methods: TypedTests.cs
// writes them to OXMCP_TYPED_TOOLS; Java's annotated methods and Kotlin's @Serializable classes:
// their typed tests) against the newest specification's schema.json: each one a Tool
// ($defs/Tool), its inputSchema and outputSchema valid JSON Schemas (2020-12).
//
//   node spec-tools.mjs TOOLS.json NODE_MODULES_DIR
//
// The specification's schemas: $OXMCP_SPEC_DIR, else ../shared/spec beside the checkout (as the
// Rust schema tests find them); where they are missing it says so and exits 0, unless CI is set.
// Prints "N passed, M failed".
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const [toolsFile, nodeModules] = process.argv.slice(2)
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = process.env.OXMCP_SPEC_DIR || path.resolve(root, '..', 'shared', 'spec')
let versions = []
try { versions = readdirSync(dir).filter(v => /^\d{4}-\d{2}-\d{2}$/.test(v)).sort() } catch { versions = [] }
const newest = versions.at(-1)
if (!newest) {
  if (!['', '0', 'false'].includes((process.env.CI || '').toLowerCase())) {
    console.log(`no specification schema in ${dir}`)
    console.log('0 passed, 1 failed')
    process.exit(1)
  }
  console.log(`no specification schema in ${dir}: the Tool check was skipped`)
  console.log('0 passed, 0 failed')
  process.exit(0)
}
const spec = JSON.parse(readFileSync(path.join(dir, newest, 'schema.json'), 'utf8'))
const require = createRequire(path.join(path.resolve(nodeModules), 'index.js'))
const Ajv2020 = require('ajv/dist/2020').default
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(spec, 'spec')
const isTool = ajv.getSchema('spec#/$defs/Tool')

const tools = JSON.parse(readFileSync(toolsFile, 'utf8'))
let passed = 0, failed = 0
const check = (ok, what) => {
  if (ok) passed++
  else { failed++; console.error(`FAIL: ${what}`) }
}
check(tools.length > 0, 'the server listed tools')
for (const tool of tools) {
  check(isTool(tool), `${tool.name} is a Tool of ${newest}: ${ajv.errorsText(isTool.errors)} in ${JSON.stringify(tool)}`)
  for (const key of ['inputSchema', 'outputSchema']) {
    if (tool[key] === undefined) continue
    check(ajv.validateSchema(tool[key]), `${tool.name}'s ${key} is a JSON Schema (2020-12): ${ajv.errorsText(ajv.errors)}`)
  }
}
console.log(`${passed} passed, ${failed} failed (tools against the ${newest} schema.json)`)
process.exit(failed === 0 ? 0 : 1)
