// oxmcp's telemetry read back from a real Jaeger and Prometheus (run.sh starts both): one
// trace from the official TypeScript client (session era) and from `oxmcp call` (2026-07-28)
// through `oxmcp proxy` into an oxmcp Python server, down to the span its handler records
// with the Python OpenTelemetry SDK; a Python client's call continuing the span it is made
// in; a session's calls through the proxy to two Redis-backed Python nodes behind haproxy,
// each in one trace with the node's store calls; the conventions' duration histograms in
// Prometheus.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chain, durations, envFor, find, freePort, promQuery, run, start, stopAll, traceOf, until } from './jaeger.mjs';

const { OXMCP_BIN, PYTHON } = process.env;
const HERE = new URL('.', import.meta.url).pathname;

// The proxy's hop and the Python host's, as every trace below crosses them.
const THROUGH_THE_PROXY = [
  ['oxmcp-proxy', 'tools/call lookup', 'server'],
  ['oxmcp-proxy', 'tools/call lookup', 'client'],
  ['python-host-engine', 'tools/call lookup', 'server'],
  ['python-host-engine', 'host handler', 'internal'],
  ['python-host-handler', 'lookup work', 'internal'],
];

let proxyUrl;

before(async () => {
  const pyPort = await freePort();
  const proxyPort = await freePort();
  const py = start(PYTHON, [`${HERE}python_host.py`, 'server', String(pyPort)], 'python-host-engine');
  await until('the Python server', async () => (await fetch(`http://127.0.0.1:${pyPort}/mcp`, { method: 'GET' }).catch(() => null)) !== null || py.stderr());
  const proxy = start(OXMCP_BIN, ['proxy', '--http', `127.0.0.1:${proxyPort}`, '--', `http://127.0.0.1:${pyPort}/mcp`], 'oxmcp-proxy');
  await until('the proxy', async () => (await fetch(`http://127.0.0.1:${proxyPort}/mcp`).catch(() => null)) !== null || proxy.stderr().includes('error'));
  proxyUrl = `http://127.0.0.1:${proxyPort}/mcp`;
});

after(stopAll);

test('a TypeScript client trace continues through oxmcp proxy into the Python handler span (session era)', async () => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const client = new Client({ name: 'ts-telemetry', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxyUrl)));
  const result = await client.callTool({
    name: 'lookup',
    arguments: { key: 'ts' },
    _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
  });
  await client.close();
  assert.equal(result.content[0].text, 'value of ts');
  const [proxyServer, , pyServer] = await chain(traceId, THROUGH_THE_PROXY);
  assert.equal(proxyServer.parent, callerSpan, "the TypeScript caller's span is the proxy span's parent");
  assert.match(proxyServer.tags['mcp.protocol.version'], /^2025-/);
  for (const s of [proxyServer, pyServer]) {
    assert.equal(s.tags['mcp.method.name'], 'tools/call');
    assert.equal(s.tags['gen_ai.tool.name'], 'lookup');
    assert.equal(s.tags['gen_ai.operation.name'], 'execute_tool');
    assert.ok(s.tags['jsonrpc.request.id'] !== undefined);
  }
});

test('through oxmcp proxy to two Redis-backed Python nodes behind haproxy, each call in one trace with its store calls', async () => {
  const port = await freePort();
  const proxy = start(OXMCP_BIN, ['proxy', '--http', `127.0.0.1:${port}`, '--', process.env.CLUSTER_URL], 'oxmcp-proxy-cluster');
  await until('the cluster proxy', async () => (await fetch(`http://127.0.0.1:${port}/mcp`).catch(() => null)) !== null || proxy.stderr().includes('error'));
  const client = new Client({ name: 'ts-telemetry', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const nodes = new Set();
  // Round robin with no affinity: consecutive calls of the session reach different nodes.
  for (let i = 0; i < 4; i++) {
    const traceId = randomBytes(16).toString('hex');
    const result = await client.callTool({
      name: 'lookup',
      arguments: { key: `node ${i}` },
      _meta: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(result.content[0].text, `value of node ${i}`);
    const spans = await until(`trace ${traceId} through a node`, async () => {
      const spans = await traceOf(traceId);
      const server = spans.find((s) => s.service.startsWith('python-node-') && s.kind === 'server');
      const run = server && spans.find((s) => s.name === 'host handler' && s.parent === server.id);
      const work = run && spans.find((s) => s.name === 'lookup work' && s.parent === run.id);
      const store = server && spans.find((s) => s.service === server.service && s.tags['db.system.name'] === 'redis');
      return work && store && spans;
    });
    const relay = find(spans, 'oxmcp-proxy-cluster', 'tools/call lookup', 'client');
    const server = spans.find((s) => s.service.startsWith('python-node-') && s.kind === 'server');
    assert.equal(server.parent, relay.id, "the node's span is the child of the proxy's relay");
    assert.equal(server.tags['mcp.method.name'], 'tools/call');
    assert.ok(server.tags['mcp.session.id'], 'the node names the session it serves');
    // The node read the shared session from Redis for this request: in its trace, under the relay.
    const store = spans.find((s) => s.service === server.service && s.tags['db.system.name'] === 'redis');
    assert.equal(store.parent, relay.id);
    assert.equal(store.kind, 'client');
    nodes.add(server.service);
  }
  await client.close();
  assert.equal(nodes.size, 2, `both nodes served calls: ${[...nodes]}`);
});

test('oxmcp call prints the trace id it used, and the trace runs to the handler span (2026-07-28)', async () => {
  const { stderr } = await run(OXMCP_BIN, ['call', 'lookup', 'key=cli', proxyUrl], { env: envFor('oxmcp-call') });
  const traceId = stderr.match(/trace id: ([0-9a-f]{32})/)?.[1];
  assert.ok(traceId, `no trace id in ${stderr}`);
  const spans = await chain(traceId, [
    ['oxmcp-call', 'oxmcp call lookup', 'internal'],
    ['oxmcp-call', 'tools/call lookup', 'client'],
    ...THROUGH_THE_PROXY,
  ]);
  assert.equal(spans[2].tags['mcp.protocol.version'], '2026-07-28');
});

test('a call that fails carries error.type on every hop', async () => {
  const { stderr } = await run(OXMCP_BIN, ['call', 'lookup', '{}', proxyUrl], { env: envFor('oxmcp-call') }).catch((e) => e);
  const traceId = stderr.match(/trace id: ([0-9a-f]{32})/)?.[1];
  assert.ok(traceId, `no trace id in ${stderr}`);
  const spans = await chain(traceId, [
    ['oxmcp-call', 'oxmcp call lookup', 'internal'],
    ['oxmcp-call', 'tools/call lookup', 'client'],
    ...THROUGH_THE_PROXY.slice(0, 3),
  ]);
  for (const s of spans.slice(1)) assert.ok(s.tags['error.type'], `${s.service} ${s.kind} has error.type`);
});

test("a Python client's call continues the span it is made in", async () => {
  const { stdout } = await run(PYTHON, [`${HERE}python_host.py`, 'client', proxyUrl], { env: envFor('python-client-engine') });
  const traceId = stdout.trim();
  assert.match(traceId, /^[0-9a-f]{32}$/);
  await chain(traceId, [
    ['python-host-client', 'python client work', 'internal'],
    ['python-client-engine', 'tools/call lookup', 'client'],
    ...THROUGH_THE_PROXY,
  ]);
});

test('Prometheus scrapes the duration histograms of both sides', async () => {
  // Each side as one process above exported it (hosts.test.mjs adds the other hosts).
  await durations('server', 'python-host-engine', 'lookup');
  await durations('client', 'python-client-engine', 'lookup');
  const inFlight = await until('oxmcp_requests_in_flight', async () => (await promQuery('oxmcp_requests_in_flight')).length > 0);
  assert.ok(inFlight);
});
