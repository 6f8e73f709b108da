'use strict'
// Schemas: a JSON Schema object, any Standard Schema validator (zod 4, Valibot, ArkType...:
// an object with `~standard`), a zod 3 schema, or a zod "raw shape" (values of one major).
// The JSON Schema is what the engine publishes and validates with; the validator then
// parses the validated value for the handler (defaults, coercions, refinements).

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

/** A Standard Schema (standardschema.dev): `~standard.validate`, version 1. */
function isStandard(value) {
  const std = value != null && (typeof value === 'object' || typeof value === 'function') ? value['~standard'] : undefined
  return std != null && std.version === 1 && typeof std.validate === 'function'
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
  if (!mod) {
    const pkg = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]
    throw new InvalidInputError(null, `${why} but the ${name} package cannot be loaded (npm install ${pkg})`)
  }
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

/** The JSON Schema of a validator's input: the vendor's Standard JSON Schema converter
 *  (`~standard.jsonSchema`) when it offers one, else the vendor's own converter. */
function jsonOfValidator(s, what) {
  try {
    return convert(s, what)
  } catch (err) {
    if (err instanceof InvalidInputError) throw err
    throw new InvalidInputError(null, `${what}: its JSON Schema cannot be made: ${err.message}`)
  }
}

function convert(s, what) {
  if (isZod3(s)) {
    // zod 3 has no JSON Schema export; the options are the MCP TypeScript SDK's.
    const { zodToJsonSchema } = need('zod-to-json-schema', 'a zod 3 schema was given')
    return zodToJsonSchema(s, { strictUnions: true, pipeStrategy: 'input' })
  }
  const std = s['~standard']
  if (std.jsonSchema && typeof std.jsonSchema.input === 'function') return std.jsonSchema.input({ target: 'draft-2020-12' })
  switch (std.vendor) {
    // zod/mini's schemas carry no converter of their own: zod's function knows them all.
    case 'zod':
      return need('zod/v4', 'a zod 4 schema was given').toJSONSchema(s, { io: 'input' })
    case 'valibot':
      // Actions JSON Schema cannot hold (trim, check, transform) stay Valibot's to apply.
      return need('@valibot/to-json-schema', 'a Valibot schema was given').toJsonSchema(s, { typeMode: 'input', errorMode: 'ignore' })
    case 'arktype':
      return s.toJsonSchema()
    default:
      throw new InvalidInputError(null, `${what}: a ${std.vendor} schema offers no JSON Schema (~standard.jsonSchema)`)
  }
}

/** `{ json, parse }`: the JSON Schema to send and validate with, and the validator (if
 *  any) that parses the validated arguments for the handler. */
function schemaOf(schema, what) {
  if (schema === undefined || schema === null) return { json: { type: 'object', properties: {} }, parse: null }
  let v = null
  if (isZod3(schema) || isStandard(schema)) v = schema
  else if (isZodShape(schema)) v = objectOfShape(schema)
  if (v) return { json: jsonOfValidator(v, what), parse: v }
  if (typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidInputError(null, `${what} must be a JSON Schema object or a Standard Schema (zod, Valibot, ArkType...)`)
  }
  return { json: schema, parse: null }
}

function invalid(issues) {
  const text = issues.map(i => {
    const path = (i.path || []).map(p => (p !== null && typeof p === 'object' ? p.key : p)).map(String).join('.')
    return `${path || '(root)'}: ${i.message}`
  })
  // The caller's mistake, which the model must read (maskErrors leaves it alone) and the
  // server need not report.
  return new InvalidInputError(null, `Invalid arguments: ${text.join('; ') || 'rejected by the schema'}`)
}

/** Parses `value` with validator `v`: the parsed value, or an InvalidInputError naming
 *  each issue. A Standard Schema may answer asynchronously: then a Promise. zod 3 before
 *  3.24 has no `~standard`: its safeParse answers alike. */
function parseWith(v, value) {
  if (!isStandard(v)) {
    const r = v.safeParse(value)
    if (r.success) return r.data
    throw invalid(r.error.issues || [{ message: r.error.message }])
  }
  const settle = r => {
    if (r.issues) throw invalid(r.issues)
    return r.value
  }
  const r = v['~standard'].validate(value)
  return r && typeof r.then === 'function' ? r.then(settle) : settle(r)
}

module.exports = { schemaOf, zod, parseWith }
