'use strict'
// Schemas: a JSON Schema object, a zod 4 schema, or a zod "raw shape".

const { InvalidInputError } = require('./errors.cjs')

function isZod(value) {
  return value != null && typeof value === 'object' && value._zod !== undefined && typeof value.safeParse === 'function'
}

function isZodShape(value) {
  if (value == null || typeof value !== 'object' || Array.isArray(value) || isZod(value)) return false
  const vals = Object.values(value)
  return vals.length > 0 && vals.every(isZod)
}

let zodModule
function zod() {
  if (zodModule === undefined) {
    try {
      zodModule = require('zod')
    } catch {
      zodModule = null
    }
  }
  if (!zodModule) throw new InvalidInputError(null, 'a zod schema was given but the zod package cannot be loaded')
  return zodModule
}

/** `{ json, zod }`: the JSON Schema to send and validate with, and the zod schema (if any)
 *  that parses the validated arguments for the handler. */
function schemaOf(schema, what) {
  if (schema === undefined || schema === null) return { json: { type: 'object', properties: {} }, zod: null }
  let z = null
  if (isZod(schema)) z = schema
  else if (isZodShape(schema)) z = zod().object(schema)
  if (z) {
    const json = typeof z.toJSONSchema === 'function'
      ? z.toJSONSchema({ io: 'input' })
      : zod().toJSONSchema(z, { io: 'input' })
    return { json, zod: z }
  }
  if (typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidInputError(null, `${what} must be a JSON Schema object or a zod schema`)
  }
  return { json: schema, zod: null }
}

function zodParse(z, value) {
  const r = z.safeParse(value)
  if (r.success) return r.data
  const issues = (r.error.issues || []).map(i => `${(i.path || []).join('.') || '(root)'}: ${i.message}`)
  throw new Error(`Invalid arguments: ${issues.join('; ') || r.error.message}`)
}

module.exports = { schemaOf, zod, zodParse }
