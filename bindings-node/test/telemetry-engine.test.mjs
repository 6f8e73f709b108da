// The application's OpenTelemetry joined to the engine's own telemetry (on, from
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, exporting to a sink this test serves): the engine's
// client span is a child of the caller's span and its server span a child of that, so the
// handler's span is a grandchild of the caller's, in the same trace (never the caller's
// direct child, nor a root). The engine's spans themselves are checked in a real Jaeger by
// tests/telemetry.
import { it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { trace, context } from '@opentelemetry/api'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

let sink
let posts = 0
let oxmcp

before(async () => {
  sink = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => { posts += 1; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() })
  })
  await new Promise(r => sink.listen(0, '127.0.0.1', r))
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${sink.address().port}/v1/traces`
  process.env.OTEL_METRICS_EXPORTER = 'none'
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50'
  // Loaded only now: the engine reads the variables when its runtime starts.
  oxmcp = await import('oxmcp')
})
after(() => sink.close())

it("the engine's spans sit between the caller's span and the handler's", async () => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  const s = new oxmcp.Server({ name: 'traced', version: '1.0.0' })
  s.tool('work', { description: 'starts a span of its own' }, async () => {
    trace.getTracer('app').startSpan('handler work').end()
    const here = trace.getSpanContext(context.active())
    return `${here.traceId}/${here.spanId}`
  })
  const client = await oxmcp.Client.inMemory(s)
  try {
    const tracer = trace.getTracer('app')
    const { answer, app } = await tracer.startActiveSpan('app call', async span => {
      const answer = await client.callTool('work', {})
      span.end()
      return { answer, app: span.spanContext() }
    })
    const [traceId, parentId] = answer.content[0].text.split('/')
    const work = exporter.getFinishedSpans().find(x => x.name === 'handler work')
    assert.equal(traceId, app.traceId, 'the handler ran in the caller\'s trace')
    assert.notEqual(parentId, app.spanId, 'the engine\'s spans come in between')
    assert.equal(work.spanContext().traceId, app.traceId)
    assert.equal(work.parentSpanContext.spanId, parentId)
    // The engine exported its spans (to this test's sink).
    const deadline = Date.now() + 10_000
    while (posts === 0 && Date.now() < deadline) await new Promise(r => setTimeout(r, 50))
    assert.ok(posts > 0, 'the engine exported over OTLP')
  } finally {
    await client.close()
    await provider.shutdown()
  }
})
