// The oxmcp client (through the `oxmcp` CLI: inspect / call / read / prompt --json, with a
// URL after `--`) against HTTP servers built with the official SDKs:
//   (a) the official TypeScript everything server in `streamableHttp` mode (/mcp),
//   (b) the same server in `sse` mode: legacy HTTP+SSE (/sse + /message), which the oxmcp
//       client must detect on its own from the URL,
//   (c) python_server.py over Streamable HTTP (`python_server.py http PORT`: the Python SDK's
//       own runner, uvicorn).
// Every server binds 127.0.0.1 on a free port (the TS server through loopback.mjs, since it
// has no host option) and runs for the whole file; each CLI command is one client session.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { b64, HERE, oxmcpBin, PNG_SIGNATURE, ProcessRunner, startHttpServer, waitFor } from './helpers.mjs';

const T = { timeout: 60_000 };
// Each CLI command is its own session, so the tests of a group are independent.
const GROUP = { concurrency: 2 };
const runner = new ProcessRunner();

const EVERYTHING = path.join(HERE, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const LOOPBACK = pathToFileURL(path.join(HERE, 'loopback.mjs')).href;
const PYTHON = path.join(HERE, '.venv/bin/python');

/** The official TS everything server in `mode` (streamableHttp | sse), on 127.0.0.1. */
const startEverything = (mode, ready) =>
  startHttpServer({
    name: `server-everything ${mode}`,
    command: process.execPath,
    args: () => ['--import', LOOPBACK, EVERYTHING, mode],
    env: (port) => ({ PORT: String(port) }),
    ready,
  });

let tsHttp;
let tsSse;
let pyHttp;
let TS_HTTP_URL;
let TS_SSE_URL;
let PY_URL;

before(async () => {
  assert.ok(existsSync(PYTHON), `${PYTHON} exists (run.sh creates the venv)`);
  const started = await Promise.allSettled([
    startEverything('streamableHttp', /MCP Streamable HTTP Server listening on port \d+/),
    startEverything('sse', /Server is running on port \d+/),
    startHttpServer({
      name: 'python_server.py http',
      command: PYTHON,
      args: (port) => [path.join(HERE, 'python_server.py'), 'http', String(port)],
      ready: /Uvicorn running on http:\/\/127\.0\.0\.1:\d+/,
    }),
  ]);
  [tsHttp, tsSse, pyHttp] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  const failed = started.filter((r) => r.status === 'rejected');
  if (failed.length) throw new Error(failed.map((r) => r.reason.message).join('\n'));
  TS_HTTP_URL = `http://127.0.0.1:${tsHttp.port}/mcp`;
  TS_SSE_URL = `http://127.0.0.1:${tsSse.port}/sse`;
  PY_URL = `http://127.0.0.1:${pyHttp.port}/mcp`;
});

after(async () => {
  runner.killAll();
  await Promise.all([tsHttp?.stop(), tsSse?.stop(), pyHttp?.stop()]);
});

/** Runs `oxmcp <args...> -- <url>`; resolves { code, stdout, stderr, json }. */
async function oxmcp(args, url, env) {
  const r = await runner.run(oxmcpBin(), [...args, '--', url], { env });
  let json;
  if (r.code === 0 || r.code === 2) {
    try {
      json = JSON.parse(r.stdout);
    } catch {
      assert.fail(`oxmcp ${args.join(' ')} -- ${url} printed non-JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`);
    }
  }
  return { ...r, json };
}

/** A command that must succeed (exit 0) and print JSON. */
async function ok(args, url, env) {
  const r = await oxmcp(args, url, env);
  assert.equal(r.code, 0, `oxmcp ${args.join(' ')} -- ${url} exited ${r.code}: ${r.stderr}`);
  return r.json;
}

const call = (url, tool, args = {}, env) => oxmcp(['call', '--json', tool, JSON.stringify(args)], url, env);
const texts = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text);
const stderrLines = (r, prefix) => r.stderr.split('\n').filter((l) => l.startsWith(prefix));

const TS_TOOLS = [
  'echo',
  'get-sum',
  'get-tiny-image',
  'get-structured-content',
  'get-annotated-message',
  'get-resource-links',
  'get-resource-reference',
  'trigger-long-running-operation',
];

/**
 * The checks shared by the TS everything server's two HTTP modes; `url()` is read when the
 * tests run (the servers start in the top-level before hook).
 */
function everythingServerTests(url) {
  let info;
  before(async () => {
    info = await ok(['inspect', '--json'], url());
  });

  it('inspect: serverInfo, protocol version, capabilities', T, () => {
    assert.equal(info.serverInfo.name, 'mcp-servers/everything');
    assert.equal(info.serverInfo.title, 'Everything Reference Server');
    assert.equal(typeof info.serverInfo.version, 'string');
    assert.equal(info.protocolVersion, '2025-11-25');
    for (const cap of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      assert.ok(info.capabilities[cap], `capability ${cap}`);
    }
  });

  it('inspect: tool names and schemas, resources, templates, prompts', T, () => {
    const names = info.tools.map((t) => t.name);
    for (const name of TS_TOOLS) assert.ok(names.includes(name), `tool ${name} listed (have ${names})`);
    const echo = info.tools.find((t) => t.name === 'echo');
    assert.deepEqual(echo.inputSchema.required, ['message']);
    assert.ok(info.resources.some((r) => r.uri === 'demo://resource/static/document/features.md'));
    assert.deepEqual(info.resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    const prompts = info.prompts.map((p) => p.name);
    for (const name of ['simple-prompt', 'args-prompt', 'resource-prompt']) assert.ok(prompts.includes(name), name);
  });

  it('calls echo', T, async () => {
    const r = await call(url(), 'echo', { message: 'hello over HTTP ✓ "q"\n\ndata: x' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json.content, [{ type: 'text', text: 'Echo: hello over HTTP ✓ "q"\n\ndata: x' }]);
  });

  it('calls get-sum', T, async () => {
    const r = await call(url(), 'get-sum', { a: 19, b: 23.25 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts(r.json), ['The sum of 19 and 23.25 is 42.25.']);
  });

  it('calls get-tiny-image (image content)', T, async () => {
    const r = await call(url(), 'get-tiny-image');
    assert.equal(r.code, 0, r.stderr);
    const image = r.json.content.find((c) => c.type === 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual(b64(image.data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('calls get-structured-content (structuredContent)', T, async () => {
    const r = await call(url(), 'get-structured-content', { location: 'New York' });
    assert.equal(r.code, 0, r.stderr);
    const sc = r.json.structuredContent;
    assert.equal(typeof sc.temperature, 'number');
    assert.equal(typeof sc.conditions, 'string');
    assert.deepEqual(JSON.parse(texts(r.json)[0]), sc);
  });

  it('calls get-resource-reference (embedded resource)', T, async () => {
    const r = await call(url(), 'get-resource-reference', { resourceType: 'Text', resourceId: 4 });
    assert.equal(r.code, 0, r.stderr);
    const embedded = r.json.content.find((c) => c.type === 'resource');
    assert.equal(embedded.resource.uri, 'demo://resource/dynamic/text/4');
    assert.match(embedded.resource.text, /^Resource 4: /);
  });

  it('calls trigger-long-running-operation and reports its progress', T, async () => {
    const r = await call(url(), 'trigger-long-running-operation', { duration: 0.3, steps: 3 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts(r.json), ['Long running operation completed. Duration: 0.3 seconds, Steps: 3.']);
    assert.deepEqual(stderrLines(r, 'progress '), ['progress 1/3', 'progress 2/3', 'progress 3/3']);
  });

  it('an unknown tool is reported as an error (exit 2)', T, async () => {
    const r = await call(url(), 'no-such-tool');
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.json.isError, true);
    assert.match(texts(r.json)[0], /no-such-tool/);
  });

  it('reads the static markdown resource and a blob template instance', T, async () => {
    const uri = 'demo://resource/static/document/features.md';
    const doc = await ok(['read', '--json', uri], url());
    assert.equal(doc.contents[0].uri, uri);
    assert.equal(doc.contents[0].mimeType, 'text/markdown');
    assert.match(doc.contents[0].text, /^# Everything Server - Features/);
    const blob = await ok(['read', '--json', 'demo://resource/dynamic/blob/6'], url());
    assert.equal(blob.contents[0].uri, 'demo://resource/dynamic/blob/6');
    assert.match(b64(blob.contents[0].blob).toString('utf8'), /^Resource 6: This is a base64 blob/);
  });

  it('gets prompts (with arguments, with an embedded resource)', T, async () => {
    const args = await ok(['prompt', '--json', 'args-prompt', '{"city":"Lyon","state":"ARA"}'], url());
    assert.deepEqual(args.messages, [{ role: 'user', content: { type: 'text', text: "What's weather in Lyon, ARA?" } }]);
    const res = await ok(['prompt', '--json', 'resource-prompt', '{"resourceType":"Text","resourceId":"8"}'], url());
    assert.equal(res.messages[1].content.type, 'resource');
    assert.equal(res.messages[1].content.resource.uri, 'demo://resource/dynamic/text/8');
  });

  it('a prompt missing a required argument fails', T, async () => {
    const r = await oxmcp(['prompt', '--json', 'args-prompt', '{}'], url());
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /city/);
  });
}

describe('oxmcp client -> official TypeScript everything server (streamableHttp, /mcp)', GROUP, () => {
  everythingServerTests(() => TS_HTTP_URL);
});

describe('oxmcp client -> official TypeScript everything server (streamableHttp): session lifecycle', () => {
  it('every session the CLI opened was ended with DELETE when it exited', T, async () => {
    // The TS server logs "Session initialized with ID: <id>" and, on DELETE,
    // "Received session termination request for session <id>".
    const r = await call(TS_HTTP_URL, 'echo', { message: 'last one' });
    assert.equal(r.code, 0, r.stderr);
    const ids = (re) => [...tsHttp.output().matchAll(re)].map((m) => m[1]).sort();
    const opened = ids(/Session initialized with ID: (\S+)/g);
    assert.ok(opened.length >= 10, `sessions opened: ${opened.length}`);
    const ended = () => ids(/Received session termination request for session (\S+)/g);
    await waitFor(() => ended().length >= opened.length, 2_000, 'a DELETE for every session').catch(() => {});
    assert.deepEqual(ended(), opened);
  });
});

describe('oxmcp client -> official TypeScript everything server (sse: legacy /sse + /message)', GROUP, () => {
  everythingServerTests(() => TS_SSE_URL);
});

for (const era of ['session', 'auto']) {
describe(`oxmcp client (${era} era) -> official Python SDK server over Streamable HTTP (python_server.py http)`, GROUP, () => {
    // The official Python SDK 2.x server speaks both eras: auto settles on 2026-07-28.
    before(() => { process.env.OXMCP_ERA = era; });
    after(() => { delete process.env.OXMCP_ERA; });
    let info;
    before(async () => {
      info = await ok(['inspect', '--json'], PY_URL);
    });

    it('inspect: serverInfo, protocol version, instructions, tools', T, () => {
      assert.deepEqual(info.serverInfo, { name: 'oxmcp-interop-python', version: '1.2.3' });
      assert.equal(info.protocolVersion, era === 'session' ? '2025-11-25' : '2026-07-28');
      assert.equal(info.instructions, 'Interop fixture server for oxmcp (official Python SDK).');
      const tools = Object.fromEntries(info.tools.map((t) => [t.name, t]));
      assert.deepEqual(Object.keys(tools).sort(), ['add', 'count_to', 'echo_header', 'fail', 'greet']);
      assert.equal(tools.add.inputSchema.properties.a.type, 'integer');
      assert.deepEqual(tools.add.inputSchema.required.sort(), ['a', 'b']);
      assert.equal(tools.add.outputSchema.properties.result.type, 'integer');
    });

    it('inspect: the resource, the template and the prompt', T, () => {
      assert.deepEqual(
        info.resources.map((r) => [r.uri, r.name, r.mimeType]),
        [['interop://static/readme', 'readme', 'text/plain']],
      );
      assert.deepEqual(
        info.resourceTemplates.map((t) => t.uriTemplate),
        ['interop://users/{user_id}/profile'],
      );
      assert.deepEqual(
        info.prompts.map((p) => p.name),
        ['review_code'],
      );
    });

    it('calls add (text and structured content)', T, async () => {
      const r = await call(PY_URL, 'add', { a: 1234, b: -34 });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(r.json), ['1200']);
      assert.deepEqual(r.json.structuredContent, { result: 1200 });
      assert.equal(r.json.isError, false);
    });

    it('calls greet', T, async () => {
      const r = await call(PY_URL, 'greet', { name: 'Grace ✓' });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(r.json), ['Hello, Grace ✓!']);
    });

    it('calls count_to: progress and log notifications reach the client', T, async () => {
      const r = await call(PY_URL, 'count_to', { n: 3 });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(r.json), ['counted to 3']);
      assert.deepEqual(stderrLines(r, 'progress '), ['progress 1/3: step 1', 'progress 2/3: step 2', 'progress 3/3: step 3']);
      assert.deepEqual(stderrLines(r, '[info] '), ['[info] counted 1', '[info] counted 2', '[info] counted 3']);
    });

    it('OXMCP_HEADERS adds headers to the HTTP requests', T, async () => {
      const env = { OXMCP_HEADERS: 'X-Interop-Token: s3cret value\nX-Second: two' };
      const first = await call(PY_URL, 'echo_header', { name: 'X-Interop-Token' }, env);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(texts(first.json), ['s3cret value']);
      const second = await call(PY_URL, 'echo_header', { name: 'X-Second' }, env);
      assert.deepEqual(texts(second.json), ['two']);
      const without = await call(PY_URL, 'echo_header', { name: 'X-Interop-Token' });
      assert.deepEqual(texts(without.json), ['<none>']);
    });

    it('a tool that raises is a tool error (exit 2)', T, async () => {
      const r = await call(PY_URL, 'fail', { reason: 'over http' });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.json.isError, true);
      // The SDK reports an unexpected exception without its message.
      assert.deepEqual(texts(r.json), ['Error executing tool fail']);
    });

    it('reads the static resource and a template instance', T, async () => {
      const readme = await ok(['read', '--json', 'interop://static/readme'], PY_URL);
      assert.deepEqual(readme.contents, [
        { uri: 'interop://static/readme', mimeType: 'text/plain', text: 'oxmcp interop readme: static text' },
      ]);
      const profile = await ok(['read', '--json', 'interop://users/31/profile'], PY_URL);
      assert.deepEqual(profile.contents, [
        { uri: 'interop://users/31/profile', mimeType: 'text/plain', text: 'profile of user 31' },
      ]);
    });

    it('reading an unknown resource fails', T, async () => {
      const r = await oxmcp(['read', '--json', 'interop://nope'], PY_URL);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /interop:\/\/nope/);
    });

    it('gets the prompt with its arguments', T, async () => {
      const p = await ok(['prompt', '--json', 'review_code', '{"code":"SELECT 1","language":"sql"}'], PY_URL);
      assert.equal(p.description, 'Ask for a review of some code in a given language.');
      assert.deepEqual(p.messages, [
        { role: 'user', content: { type: 'text', text: 'Please review this sql code:\nSELECT 1' } },
      ]);
    });
  });
}
