// The notes server of ../shared/hostdx (examples/notes-server.mjs), served over stdio and
// driven by oxmcp's client as the hostdx client does: each tool, the template, the prompt.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { Client, RequestCancelledError, AbortError } from 'oxmcp'
import { ROOT } from './helpers.mjs'

it('serves the hostdx notes server: typed arguments, progress then cancel, elicitation, template, prompt', async () => {
  const asked = []
  const client = await Client.stdio(process.execPath, [path.join(ROOT, 'examples', 'notes-server.mjs')], {
    elicitation: async params => {
      asked.push(params)
      return asked.length === 1 ? { action: 'decline' } : { action: 'accept', content: { confirm: true, reason: 'obsolete' } }
    },
  })
  try {
    const tools = Object.fromEntries((await client.listTools()).map(t => [t.name, t]))
    assert.deepEqual(Object.keys(tools).sort(), ['delete_note', 'reindex', 'search_notes'])
    const search = tools.search_notes.inputSchema
    assert.deepEqual(search.properties.sort, { type: 'string', enum: ['newest', 'oldest', 'relevance'], default: 'relevance' })
    assert.deepEqual(search.required, ['query'])
    assert.equal(search.properties.query.description, 'text to look for')
    assert.equal(tools.search_notes.outputSchema.properties.names.type, 'array')

    assert.deepEqual((await client.callTool('search_notes', { query: 'milk', sort: 'newest' })).structuredContent, { names: ['todo'] })
    assert.deepEqual((await client.callTool('search_notes', { query: 'i', limit: 1 })).structuredContent, { names: ['todo'] })
    const badSort = await client.callTool('search_notes', { query: 'x', sort: 'random' })
    assert.equal(badSort.isError, true)
    assert.match(badSort.content[0].text, /sort/)

    // Progress arrives, then the client cancels: the call rejects, and the server answers on.
    const controller = new AbortController()
    const progress = []
    const reindex = client.callTool('reindex', { steps: 10 }, {
      signal: controller.signal,
      onProgress: p => {
        progress.push(p)
        controller.abort('took too long')
      },
    })
    await assert.rejects(reindex, err => err instanceof AbortError || err instanceof RequestCancelledError)
    assert.deepEqual(progress[0], { progress: 1, total: 10, message: 'step 1' })

    assert.equal((await client.callTool('delete_note', { name: 'todo' })).content[0].text, 'kept')
    assert.equal((await client.callTool('delete_note', { name: 'todo' })).content[0].text, 'deleted (obsolete)')
    assert.equal(asked[0].message, 'Delete todo?')
    assert.deepEqual(asked[0].requestedSchema.required, ['confirm'])
    assert.deepEqual((await client.callTool('search_notes', { query: 'milk' })).structuredContent, { names: [] })

    assert.deepEqual((await client.listResourceTemplates()).map(t => t.uriTemplate), ['notes://{name}'])
    assert.deepEqual((await client.readResource('notes://ideas')).contents[0], { uri: 'notes://ideas', mimeType: 'text/plain', text: 'write a parser' })
    const review = await client.getPrompt('review_note', { name: 'ideas' })
    assert.deepEqual(review.messages[0].content, { type: 'text', text: 'Please review this note:\nwrite a parser' })
  } finally {
    await client.close()
  }
})
