// The application's OpenTelemetry (@opentelemetry/api with the Node SDK's tracer provider)
// joined to the engine's traces, with the engine's own telemetry off (no OTEL_* variables):
// a handler's spans nest under the span the client's call was made in (its trace context
// travels in `_meta`), in both eras; a client's sampling handler runs in the span the
// server's request names in its `_meta`; a handler called outside any span starts a trace of
// its own; and with no provider registered nothing is joined. The engine's own spans in
// between are test/telemetry-engine.test.mjs's.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { trace, context } from '@opentelemetry/api'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Client, Server } from 'oxmcp'

for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name]

/** A server whose tool `work` starts a span `handler work` and answers with the context it
 *  ran in. */
function server() {
  const s = new Server({ name: 'traced', version: '1.0.0' })
  s.tool('work', { description: 'starts a span of its own' }, async () => {
    const here = trace.getSpanContext(context.active())
    await trace.getTracer('app').startActiveSpan('handler work', async span => {
      await new Promise(r => setTimeout(r, 5))
      span.end()
    })
    return here ? `${here.traceId}/${here.spanId}` : 'none'
  })
  return s
}

describe('a handler joins the trace of the call it serves (engine telemetry off)', () => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  before(() => provider.register())
  after(() => provider.shutdown())

  for (const era of ['session', 'stateless']) {
    it(`nests under the caller's span (${era} era)`, async () => {
      const client = await Client.inMemory(server(), { era })
      try {
        assert.equal(client.era, era)
        exporter.reset()
        const tracer = trace.getTracer('app')
        const { answer, app } = await tracer.startActiveSpan('app call', async span => {
          const answer = await client.callTool('work', {})
          span.end()
          return { answer, app: span.spanContext() }
        })
        // The handler ran in the caller's span...
        assert.equal(answer.content[0].text, `${app.traceId}/${app.spanId}`)
        // ...so the span it started is that span's child, in its trace.
        const work = exporter.getFinishedSpans().find(s => s.name === 'handler work')
        assert.ok(work, 'the handler span was exported')
        assert.equal(work.spanContext().traceId, app.traceId)
        assert.equal(work.parentSpanContext?.spanId, app.spanId)
        assert.equal(work.parentSpanContext?.isRemote, true)
      } finally {
        await client.close()
      }
    })
  }

  it("a client's sampling handler runs in the span the server's request names in _meta", async () => {
    const named = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }
    const s = new Server({ name: 'asks', version: '1.0.0' })
    s.tool('ask_traced', { description: 'asks the client to sample, naming a span' }, async (_args, ctx) => {
      const _meta = { traceparent: `00-${named.traceId}-${named.spanId}-01` }
      return (await ctx.sample('hi', { maxTokens: 5, _meta })).model
    })
    const sampling = async () => {
      trace.getTracer('app').startSpan('sampling work').end()
      return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm1' }
    }
    const client = await Client.inMemory(s, { sampling })
    try {
      exporter.reset()
      assert.equal((await client.callTool('ask_traced', {})).content[0].text, 'm1')
      const work = exporter.getFinishedSpans().find(s => s.name === 'sampling work')
      assert.ok(work, 'the sampling handler span was exported')
      assert.equal(work.spanContext().traceId, named.traceId)
      assert.equal(work.parentSpanContext?.spanId, named.spanId)
    } finally {
      await client.close()
    }
  })

  it('a call outside any span gives the handler a trace of its own', async () => {
    const client = await Client.inMemory(server())
    try {
      exporter.reset()
      const answer = await client.callTool('work', {})
      assert.equal(answer.content[0].text, 'none')
      const work = exporter.getFinishedSpans().find(s => s.name === 'handler work')
      assert.ok(work)
      assert.equal(work.parentSpanContext, undefined)
    } finally {
      await client.close()
    }
  })
})
