// The notes server of ../shared/hostdx (the same small server written with each official SDK),
// with oxmcp and zod: typed arguments with an enum and an optional field, structured output,
// progress with cancellation, an elicitation, a resource template and a prompt.
import { Server } from 'oxmcp'
import * as z from 'zod/v4'

const notes = { todo: 'buy milk', ideas: 'write a parser' }
const server = new Server({ name: 'notes', version: '1.0.0' })

server.tool(
  'search_notes',
  {
    description: 'Search the notes',
    inputSchema: z.object({
      query: z.string().describe('text to look for'),
      sort: z.enum(['newest', 'oldest', 'relevance']).default('relevance'),
      limit: z.number().int().min(1).max(50).optional(),
    }),
    outputSchema: z.object({ names: z.array(z.string()) }),
  },
  async ({ query, limit }) => ({ names: Object.keys(notes).filter(n => notes[n].includes(query)).slice(0, limit) }),
)

server.tool(
  'reindex',
  { description: 'Rebuild the index, reporting progress', inputSchema: z.object({ steps: z.number().int() }) },
  async ({ steps }, ctx) => {
    for (let i = 0; i < steps; i++) {
      if (ctx.signal.aborted) {
        await ctx.log('warning', 'reindex cancelled')
        break
      }
      await ctx.progress(i + 1, steps, `step ${i + 1}`)
      await new Promise(resolve => setTimeout(resolve, 500))
    }
    return 'reindexed'
  },
)

server.tool(
  'delete_note',
  { description: 'Delete a note after asking the user', inputSchema: z.object({ name: z.string() }) },
  async ({ name }, ctx) => {
    const answer = await ctx.elicit(`Delete ${name}?`, z.object({ confirm: z.boolean(), reason: z.string().optional() }))
    if (answer.action !== 'accept' || answer.content.confirm !== true) return 'kept'
    delete notes[name]
    return `deleted (${answer.content.reason ?? ''})`
  },
)

server.resource('notes://{name}', { description: 'A note by name', mimeType: 'text/plain' }, async (uri, { name }) => notes[name])

server.prompt(
  'review_note',
  { description: 'Ask for a review of a note', argsSchema: z.object({ name: z.string() }) },
  ({ name }) => `Please review this note:\n${notes[name] ?? ''}`,
)

await server.listenStdio() // or: await server.listenHttp({ port: 8000 })
