import { Server } from 'oxmcp'
import { appendFileSync } from 'node:fs'
const log = process.argv[2]
globalThis.__marks = {}
const orig = Server.prototype._dispatch
Server.prototype._dispatch = function (kind, ...rest) {
  if (kind === 5) globalThis.__marks.d = process.hrtime.bigint()
  return orig.call(this, kind, ...rest)
}
const server = new Server({ name: 'probe', version: '1' })
server.tool('echo', { description: 'e', inputSchema: { type: 'object' } }, (a) => a.text)
server.tool('slow', { description: 'w', inputSchema: { type: 'object' } }, async (_a, ctx) => new Promise(resolve => {
  const signal = ctx.signal
  const timer = setTimeout(() => resolve('done'), 60000)
  signal.addEventListener('abort', () => {
    const seen = process.hrtime.bigint()
    clearTimeout(timer)
    const m = globalThis.__marks
    appendFileSync(log, `${seen}\n`)
    appendFileSync(log + '.d', `${m.d} ${m.a} ${m.b} ${seen}\n`)
    resolve('cancelled')
  }, { once: true })
}))
await server.listenStdio()
