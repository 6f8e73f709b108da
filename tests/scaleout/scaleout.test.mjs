// Scale-out under failure: three `oxmcp everything-server --http --redis` nodes behind
// haproxy (round-robin, no affinity), started by tests/scaleout/run.sh, which passes them
// in OXMCP_CLUSTER: {"lb": URL, "nodes": [{"name", "pid", "port"}], "redis": {"pid", "port"},
// "bin": the oxmcp binary, "dir": the logs folder}.
//   - kill -9 of the node holding a client's resumed SSE stream, mid-call: the client
//     resumes on another node, no event lost or repeated, and the result arrives;
//   - Redis restarted during traffic: 503 with a JSON-RPC error body while it is down,
//     service when it is back, no thread leaked;
//   - stateless era: a resource update made through one node reaches listeners on the
//     two others.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const cluster = JSON.parse(process.env.OXMCP_CLUSTER ?? 'null');
assert.ok(cluster, 'run through tests/scaleout/run.sh (OXMCP_CLUSTER is not set)');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(what, predicate, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A fetch that records each exchange: method, status, which node answered, Last-Event-ID. */
function recording(log) {
  return async (url, init = {}) => {
    const r = await fetch(url, init);
    const h = new Headers(init.headers);
    log.push({ method: init.method ?? 'GET', status: r.status, node: r.headers.get('x-oxmcp-node'), last: h.get('last-event-id') });
    return r;
  };
}

/** Starts node `name` again on its port (after a test killed it). */
async function restart(node) {
  const child = spawn(
    cluster.bin,
    ['everything-server', '--http', `127.0.0.1:${node.port}`, '--redis', `redis://127.0.0.1:${cluster.redis.port}`],
    { stdio: 'ignore', detached: false },
  );
  node.pid = child.pid;
  restarted.push(child);
  await waitFor(`${node.name} to listen again`, async () => {
    try {
      await fetch(`http://127.0.0.1:${node.port}/mcp`, { method: 'GET' });
      return true;
    } catch {
      return false;
    }
  });
}
const restarted = [];
after(() => {
  for (const c of restarted) c.kill('SIGTERM');
});

function rpc(method, params, id = 1) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('kill -9 of the node holding the SSE stream', () => {
  it('the client resumes on another node and gets every event once, then the result', { timeout: 120_000 }, async () => {
    // The call runs on the node its POST reached and ends that first connection at once;
    // the client resumes with GET + Last-Event-ID on whichever node the balancer picks. That
    // node is killed while it streams; the call must survive on its own node. When the
    // resume lands on the node running the call, start over (round robin makes it rare).
    for (let attempt = 1; ; attempt++) {
      const http = [];
      const transport = new StreamableHTTPClientTransport(new URL(cluster.lb), {
        fetch: recording(http),
        reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
      });
      const client = new Client({ name: 'scaleout-kill', version: '1' }, { capabilities: {} });
      await client.connect(transport);
      const steps = 40;
      const progress = [];
      const call = client.callTool({ name: 'slow', arguments: { tag: attempt, ms: 8000, steps, poll: true } }, undefined, {
        timeout: 60_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.push(p.progress),
      });
      const post = await waitFor('the tools/call POST', () => http.find((x) => x.method === 'POST' && x.status === 200 && progress.length === 0 && x));
      const resumed = await waitFor('a resume with Last-Event-ID', () => http.find((x) => x.method === 'GET' && x.last && x.status === 200));
      await waitFor('some progress on the resumed stream', () => progress.length >= 5);
      const runner = http.filter((x) => x.method === 'POST' && x.status === 200).at(-1).node;
      if (resumed.node === runner) {
        await call;
        await client.close();
        assert.ok(attempt < 6, 'the resume kept landing on the node running the call');
        continue;
      }
      const victim = cluster.nodes.find((n) => n.name === resumed.node);
      console.log(`the call runs on ${runner}; its stream was resumed on ${victim.name}, killed after ${progress.length} steps`);
      process.kill(victim.pid, 'SIGKILL');
      await waitFor(`${victim.name} to die`, () => !alive(victim.pid));
      const result = await call;
      assert.equal(result.content[0].text, `slow ${attempt} done`);
      // Every step once, in order: nothing lost, nothing repeated.
      assert.deepEqual(progress, Array.from({ length: steps }, (_, i) => i + 1));
      const later = http.filter((x) => x.method === 'GET' && x.last && x.status === 200 && x !== resumed);
      assert.ok(later.some((x) => x.node !== victim.name), `resumed again elsewhere: ${JSON.stringify(http)}`);
      console.log(`resumed again on ${[...new Set(later.map((x) => x.node))].join(', ')}: ${steps} steps once each, and the result`);
      assert.ok(post);
      await client.close();
      await restart(victim);
      return;
    }
  });
});

function threads(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)[1]),
    rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(status)[1]),
  };
}

async function initialize(url) {
  const r = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
  });
  return r;
}

describe('Redis restarted during traffic', () => {
  it('503 with a JSON-RPC error while it is down, service when it is back, no thread leaked', { timeout: 120_000 }, async () => {
    const node = cluster.nodes.find((n) => alive(n.pid));
    const direct = `http://127.0.0.1:${node.port}/mcp`;
    const ok = await initialize(direct);
    assert.equal(ok.status, 200);
    const sid = ok.headers.get('mcp-session-id');
    await ok.text();
    const before = threads(node.pid);

    process.kill(cluster.redis.pid, 'SIGKILL');
    await waitFor('redis to die', () => !alive(cluster.redis.pid));
    // Traffic while it is down: each request is answered, none hangs.
    const took = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const r = await fetch(direct, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        body: rpc('tools/list', {}, i),
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(r.status, 503);
      const body = await r.json();
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.error.code, -32603);
      assert.match(body.error.message, /shared state unavailable/);
      took.push(performance.now() - t0);
    }
    took.sort((a, b) => a - b);
    console.log(`while Redis is down: 503 in ${Math.round(took[10])} ms (median of 20)`);
    const fresh = await initialize(direct);
    assert.equal(fresh.status, 503);
    await fresh.text();

    const redis = spawn('redis-server', ['--port', String(cluster.redis.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    restarted.push(redis);
    cluster.redis.pid = redis.pid;
    // Service is back on every node (its sessions were in the old Redis: a new one starts).
    for (const n of cluster.nodes.filter((n) => alive(n.pid))) {
      const url = `http://127.0.0.1:${n.port}/mcp`;
      const r = await waitFor(`${n.name} to serve again`, async () => {
        const r = await initialize(url);
        if (r.status === 200) return r;
        await r.text();
        return null;
      });
      const again = r.headers.get('mcp-session-id');
      await r.text();
      const list = await fetch(url, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': again, 'mcp-protocol-version': '2025-11-25' },
        body: rpc('tools/list', {}, 2),
      });
      assert.equal(list.status, 200);
      assert.match(await list.text(), /"tools"/);
    }
    const afterwards = threads(node.pid);
    console.log(`node ${node.name}: threads ${before.threads} -> ${afterwards.threads}, RSS ${before.rssKb} -> ${afterwards.rssKb} KiB`);
    assert.equal(afterwards.threads, before.threads, 'no thread leaked while Redis was down');
  });
});

describe('stateless era across nodes', () => {
  it('a resource update made through one node reaches listeners on the two others', { timeout: 60_000 }, async () => {
    const live = cluster.nodes.filter((n) => alive(n.pid));
    assert.ok(live.length >= 3, 'three nodes');
    const uri = `test://scaleout/${Date.now()}`;
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'l', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const listen = async (node) => {
      const r = await fetch(`http://127.0.0.1:${node.port}/mcp`, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        body: rpc('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] }, _meta: meta }, 7),
      });
      assert.equal(r.status, 200);
      const reader = r.body.getReader();
      const heard = [];
      (async () => {
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += Buffer.from(value).toString();
          heard.splice(0, heard.length, ...text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))));
        }
      })().catch(() => {});
      return { heard, close: () => reader.cancel() };
    };
    const [writer, ...others] = live;
    const listeners = await Promise.all(others.map(listen));
    // The update: the everything server's tool that changes the resource, through node 0.
    const r = await fetch(`http://127.0.0.1:${writer.port}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'touch_resource' },
      body: rpc('tools/call', { name: 'touch_resource', arguments: { uri }, _meta: meta }, 8),
    });
    assert.equal(r.status, 200, await r.text());
    for (const l of listeners) {
      await waitFor('the update on a listener of another node', () =>
        l.heard.some((m) => m.method === 'notifications/resources/updated' && m.params.uri === uri),
      );
      l.close();
    }
  });
});
