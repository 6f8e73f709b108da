// Tasks (the tasks extension) from Node: a tool with taskSupport runs as a task for a
// client that calls it with { task: true }; the promise settles with the final result,
// statuses reach onProgress, the task's questions are answered by the client's handlers,
// and aborting the call cancels the task (the handler's signal fires).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, McpError } = require('../index.cjs')

function taskServer(events, starts = []) {
  const server = new Server({ name: 'tasks', version: '1' })
  server.tool('build', { taskSupport: 'optional', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
    ({ ms }, ctx) => new Promise((resolve, reject) => {
      starts.push(ms)
      const timer = setTimeout(() => resolve(`built in ${ms} ms`), ms)
      ctx.signal.addEventListener('abort', () => { clearTimeout(timer); events.push('build aborted'); reject(new Error('aborted')) })
    }))
  server.tool('confirm', { taskSupport: 'optional' }, async (_args, ctx) => {
    const answer = await ctx.elicit('Go ahead?', { type: 'object', properties: { ok: { type: 'boolean' } } })
    return `answer: ${answer.action} ok=${answer.content.ok}`
  })
  server.tool('onlyAsTask', { taskSupport: 'required' }, () => 'ran')
  return server
}

for (const era of ['session', 'stateless']) {
  it(`a task runs while the client waits and follows it (${era} era)`, async () => {
    const events = []
    const server = taskServer(events)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    const client = await Client.http(url, { era, elicitation: async () => ({ action: 'accept', content: { ok: true } }) })
    try {
      const statuses = []
      const r = await client.callTool('build', { ms: 1200 }, { task: true, onProgress: p => statuses.push(p.message) })
      assert.equal(r.content[0].text, 'built in 1200 ms')
      assert.equal(statuses[0], 'working')
      assert.equal(statuses.at(-1), 'completed')
      assert.equal((await client.callTool('confirm', {}, { task: true })).content[0].text, 'answer: accept ok=true')
      assert.equal((await client.callTool('build', { ms: 0 })).content[0].text, 'built in 0 ms', 'without task: as always')
      // A required tool called plainly: -32601 at 2025-11-25 (that version's task form),
      // -32021 (the extension is missing) in the stateless era.
      const refusal = era === 'session' ? -32601 : -32021
      await assert.rejects(client.callTool('onlyAsTask', {}), e => e instanceof McpError && e.code === refusal)
      assert.equal((await client.callTool('onlyAsTask', {}, { task: true })).content[0].text, 'ran')

      const controller = new AbortController()
      const waiting = client.callTool('build', { ms: 60_000 }, { task: true, signal: controller.signal })
      setTimeout(() => controller.abort(), 500)
      await assert.rejects(waiting)
      for (let i = 0; i < 100 && !events.includes('build aborted'); i++) await new Promise(r => setTimeout(r, 50))
      assert.deepEqual(events, ['build aborted'])
      assert.throws(() => server.tool('bad', { taskSupport: 'sometimes' }, () => ''), /taskSupport/)
    } finally {
      await client.close()
      await server.close()
    }
  })
}

for (const era of ['session', 'stateless']) {
  it(`a task past its ttlMs is gone (${era} era)`, async () => {
    const server = new Server({ name: 'short-lived', version: '1' }, { tasks: { ttlMs: 300, pollIntervalMs: 50 } })
    server.tool('quick', { taskSupport: 'optional' }, () => 'done')
    assert.throws(() => new Server({ name: 'x' }, { tasks: { ttl: 1 } }), /invalid task options/)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    const client = await Client.http(url, { era })
    const _meta = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
    try {
      const created = await client.request('tools/call', { name: 'quick', arguments: {}, _meta })
      assert.equal(created.resultType, 'task')
      assert.equal(created.pollIntervalMs, 50)
      let task
      for (let i = 0; i < 100; i++) {
        task = await client.request('tasks/get', { taskId: created.taskId, _meta })
        if (task.status === 'completed') break
        await new Promise(r => setTimeout(r, 20))
      }
      assert.equal(task.result.content[0].text, 'done')
      await new Promise(r => setTimeout(r, 400))
      await assert.rejects(client.request('tasks/get', { taskId: created.taskId, _meta }),
        e => e instanceof McpError && e.code === -32602 && /unknown task/.test(e.message))
    } finally {
      await client.close()
      await server.close()
    }
  })
}

for (const era of ['session', 'stateless']) {
  it(`an escalating tool asks inline, then goes on as a task (${era} era)`, async () => {
    const steps = []
    const server = new Server({ name: 'escalating', version: '1' })
    server.tool('report', { taskSupport: 'optional', escalating: true, inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
      async ({ ms = 200 }, ctx) => {
        const answer = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } })
        steps.push(`escalated=${await ctx.escalateToTask()}`)
        await new Promise(resolve => setTimeout(resolve, ms))
        return `report for ${answer.content.name}`
      })
    assert.throws(() => server.tool('bad', { escalating: true }, () => 'x'), /escalating tool needs execution\.taskSupport/)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    const asked = []
    const client = await Client.http(url, { era, elicitation: async p => { asked.push(p.message); return { action: 'accept', content: { name: 'Ada' } } } })
    try {
      const statuses = []
      const r = await client.callTool('report', {}, { task: true, onProgress: p => statuses.push(p.message) })
      assert.equal(r.content[0].text, 'report for Ada')
      assert.deepEqual([asked, steps], [['Name?'], ['escalated=true']])
      assert.equal(statuses.at(-1), 'completed')
      // Without { task: true } the whole call runs inline.
      assert.equal((await client.callTool('report', { ms: 0 })).content[0].text, 'report for Ada')
      assert.equal(steps.at(-1), 'escalated=false')
    } finally {
      await client.close()
      await server.close()
    }
  })
}

for (const era of ['session', 'stateless']) {
  it(`the task steps: start, get, update and cancel (${era} era)`, async () => {
    const events = [], starts = []
    const server = taskServer(events, starts)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    // The elicitation callback declares the capability; updateTask answers, not it.
    const client = await Client.http(url, { era, elicitation: async () => { throw new Error('updateTask answers') } })
    const until = async (id, done) => {
      for (let i = 0; i < 200; i++) {
        const task = await client.getTask(id)
        if (done(task)) return task
        await new Promise(resolve => setTimeout(resolve, 50))
      }
      throw new Error(`task ${id} did not get there`)
    }
    try {
      const { task: started } = await client.startToolTask('build', { ms: 300 })
      assert.equal(started.status, 'working')
      const built = await until(started.taskId, t => t.status !== 'working')
      assert.equal(built.result.content[0].text, 'built in 300 ms')

      const { task: asking } = await client.startToolTask('confirm', {})
      const waiting = await until(asking.taskId, t => t.status === 'input_required')
      const key = Object.keys(waiting.inputRequests)[0]
      await client.updateTask(asking.taskId, { [key]: { action: 'accept', content: { ok: true } } })
      const answered = await until(asking.taskId, t => t.status === 'completed')
      assert.equal(answered.result.content[0].text, 'answer: accept ok=true')

      const { task: long } = await client.startToolTask('build', { ms: 60_000 })
      // Cancelled once its handler runs: a task cancelled before its handler got to run
      // has nothing to abort, and the handler would find its signal aborted already.
      for (let i = 0; i < 100 && !starts.includes(60_000); i++) await new Promise(resolve => setTimeout(resolve, 20))
      await client.cancelTask(long.taskId)
      assert.equal((await client.getTask(long.taskId)).status, 'cancelled')
      for (let i = 0; i < 100 && !events.includes('build aborted'); i++) await new Promise(resolve => setTimeout(resolve, 50))
      assert.ok(events.includes('build aborted'), String(events))
      await assert.rejects(client.getTask('no-such-task'), e => e instanceof McpError && e.code === -32602)
    } finally {
      await client.close()
      await server.close()
    }
  })
}
