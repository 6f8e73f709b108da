'use strict'
// Results: JavaScript values as tool, resource, prompt and completion results.

function isContentBlock(v) {
  return v != null && typeof v === 'object' && typeof v.type === 'string'
}

function toContentBlock(v) {
  if (typeof v === 'string') return { type: 'text', text: v }
  if (isContentBlock(v)) return v
  return { type: 'text', text: JSON.stringify(v) }
}

/** A tool's return value, as it crosses to the engine: what it becomes (a string one text
 *  block, an object structured content, a whole result as it is...) is the engine's one
 *  rule for every host (core/src/host/result.rs). `undefined` is nothing, as `null`. */
function toolResult(value) {
  return value === undefined ? null : value
}

function isBytes(v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer
}

function resourceContent(uri, item, mimeType) {
  if (typeof item === 'string') return mimeType ? { uri, mimeType, text: item } : { uri, text: item }
  if (isBytes(item)) {
    const blob = Buffer.from(item instanceof ArrayBuffer ? new Uint8Array(item) : item).toString('base64')
    return { uri, mimeType: mimeType || 'application/octet-stream', blob }
  }
  if (item && typeof item === 'object' && (typeof item.text === 'string' || typeof item.blob === 'string')) {
    const out = { uri, ...item }
    if (!out.mimeType && mimeType) out.mimeType = mimeType
    return out
  }
  return { uri, mimeType: mimeType || 'application/json', text: JSON.stringify(item) }
}

/** A resource's return value as a ReadResourceResult: a string is text, bytes a blob,
 *  `{contents}` as-is, an array one content per item, other values JSON text. */
function resourceResult(uri, value, mimeType) {
  if (value && typeof value === 'object' && !isBytes(value) && Array.isArray(value.contents)) return value
  const items = Array.isArray(value) ? value : [value]
  return { contents: items.map(item => resourceContent(uri, item, mimeType)) }
}

function promptMessage(item) {
  if (item && typeof item === 'object' && typeof item.role === 'string') {
    return { role: item.role, content: toContentBlock(item.content) }
  }
  return { role: 'user', content: toContentBlock(item) }
}

/** A prompt's return value as a GetPromptResult: a string is one user message; a message
 *  `{role, content}` or an array of messages and strings; `{messages}` as-is. */
function promptResult(value, description) {
  if (value && typeof value === 'object' && Array.isArray(value.messages)) return value
  const items = Array.isArray(value) ? value : [value]
  const out = { messages: items.map(promptMessage) }
  if (description) out.description = description
  return out
}

/** A completion's return value: candidate strings (all of them: the engine sends at most
 *  100 and says there are more), or a Completion as-is. */
function completionResult(value) {
  if (Array.isArray(value)) {
    const values = value.map(String)
    return { values, total: values.length, hasMore: false }
  }
  if (value && typeof value === 'object' && Array.isArray(value.values)) return value
  return { values: [] }
}

module.exports = { toolResult, resourceResult, promptResult, completionResult }
