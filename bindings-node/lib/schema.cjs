'use strict'
// Schemas: a JSON Schema object, a zod 4 (classic or mini) or zod 3 schema, or a zod "raw
// shape" (values of one major).

const { InvalidInputError } = require('./errors.cjs')

function isZod4(value) {
  return value != null && typeof value === 'object' && value._zod !== undefined && typeof value.safeParse === 'function'
}

// zod 3 keeps its definition in `_def`; zod 4 classic has a `_def` too, hence the `_zod` test.
function isZod3(value) {
  return value != null && typeof value === 'object' && value._zod === undefined && value._def !== undefined &&
    typeof value.safeParse === 'function'
}

function isZod(value) {
  return isZod4(value) || isZod3(value)
}

function isZodShape(value) {
  if (value == null || typeof value !== 'object' || Array.isArray(value) || isZod(value)) return false
  const vals = Object.values(value)
  return vals.length > 0 && vals.every(isZod)
}

// Optional packages, loaded on first use: null when missing.
const loaded = new Map()
function load(name) {
  if (!loaded.has(name)) {
    let mod = null
    try {
      mod = require(name)
    } catch {
      mod = null
    }
    loaded.set(name, mod)
  }
  return loaded.get(name)
}

function need(name, why) {
  const mod = load(name)
  if (!mod) throw new InvalidInputError(null, `${why} but the ${name} package cannot be loaded (npm install ${name.split('/')[0]})`)
  return mod
}

function zod() {
  return need('zod', 'a zod schema was given')
}

/** A raw shape as an object schema of the shape's own major: zod 3.25+ and zod 4 both
 *  ship each API under a subpath, whichever major `zod` itself is. */
function objectOfShape(shape) {
  const values = Object.values(shape)
  // zod/mini schemas have no methods (`.optional()`): a shape of them becomes a mini object.
  if (values.every(v => isZod4(v) && typeof v.optional !== 'function')) return need('zod/v4/mini', 'a zod/mini raw shape was given').object(shape)
  if (values.every(isZod4)) return need('zod/v4', 'a zod 4 raw shape was given').object(shape)
  if (values.every(isZod3)) return need('zod/v3', 'a zod 3 raw shape was given').object(shape)
  throw new InvalidInputError(null, 'a zod raw shape mixes zod 3 and zod 4 schemas')
}

function jsonOfZod(z) {
  if (isZod3(z)) {
    // zod 3 has no JSON Schema export; the options are the MCP TypeScript SDK's.
    const { zodToJsonSchema } = need('zod-to-json-schema', 'a zod 3 schema was given')
    return zodToJsonSchema(z, { strictUnions: true, pipeStrategy: 'input' })
  }
  // The function, not the method: it knows every zod 4 type, zod/mini's (which carry no
  // JSON Schema code of their own) among them.
  return need('zod/v4', 'a zod 4 schema was given').toJSONSchema(z, { io: 'input' })
}

/** `{ json, zod }`: the JSON Schema to send and validate with, and the zod schema (if any)
 *  that parses the validated arguments for the handler. */
function schemaOf(schema, what) {
  if (schema === undefined || schema === null) return { json: { type: 'object', properties: {} }, zod: null }
  let z = null
  if (isZod(schema)) z = schema
  else if (isZodShape(schema)) z = objectOfShape(schema)
  if (z) return { json: jsonOfZod(z), zod: z }
  if (typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidInputError(null, `${what} must be a JSON Schema object or a zod schema`)
  }
  return { json: schema, zod: null }
}

// zod 3 and zod 4 answer safeParse alike: `{ success, data }` or `{ error: { issues } }`.
// The failure is an InvalidInputError: the caller's mistake, which the model must read
// (maskErrors leaves it alone) and the server need not report.
function zodParse(z, value) {
  const r = z.safeParse(value)
  if (r.success) return r.data
  const issues = (r.error.issues || []).map(i => `${(i.path || []).join('.') || '(root)'}: ${i.message}`)
  throw new InvalidInputError(null, `Invalid arguments: ${issues.join('; ') || r.error.message}`)
}

module.exports = { schemaOf, zod, zodParse }
