// The oxmcp client (through the `oxmcp` CLI: inspect / call / read / prompt --json) against
// (a) the official TypeScript "everything" server and (b) a server built with the official
// Python SDK (python_server.py). Each CLI command spawns the server, initializes, runs
// one operation and exits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync } from 'node:fs';

import { b64, HERE, oxmcpBin, PNG_SIGNATURE, ProcessRunner } from './helpers.mjs';

const T = { timeout: 60_000 };
// Each CLI command runs its own server process, so the tests of a group are independent
// and two at a time keep both cores busy.
const GROUP = { concurrency: 2 };
const runner = new ProcessRunner();
after(() => runner.killAll());

const TS_SERVER = ['node', path.join(HERE, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
const PYTHON = path.join(HERE, '.venv/bin/python');
const PY_SERVER = [PYTHON, path.join(HERE, 'python_server.py')];

/** Runs `oxmcp <args...> -- <server...>`; resolves { code, stdout, stderr, json }. */
async function oxmcp(args, server) {
  const r = await runner.run(oxmcpBin(), [...args, '--', ...server]);
  let json;
  if (r.code === 0 || r.code === 2) {
    try {
      json = JSON.parse(r.stdout);
    } catch (e) {
      assert.fail(`oxmcp ${args.join(' ')} printed non-JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`);
    }
  }
  return { ...r, json };
}

/** A command that must succeed (exit 0) and print JSON. */
async function ok(args, server) {
  const r = await oxmcp(args, server);
  assert.equal(r.code, 0, `oxmcp ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.json;
}

const call = (server, tool, args = {}) => oxmcp(['call', '--json', tool, JSON.stringify(args)], server);
const texts = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text);

describe('oxmcp client -> official TypeScript everything server', GROUP, () => {
  let info;
  before(async () => {
    info = await ok(['inspect', '--json'], TS_SERVER);
  });

  it('initializes: inspect shows serverInfo, protocol version and capabilities', T, () => {
    assert.equal(info.serverInfo.name, 'mcp-servers/everything');
    assert.equal(info.serverInfo.title, 'Everything Reference Server');
    assert.equal(typeof info.serverInfo.version, 'string');
    assert.equal(info.protocolVersion, '2025-11-25');
    for (const cap of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      assert.ok(info.capabilities[cap], `capability ${cap}`);
    }
  });

  it('lists tools with their schemas', T, async () => {
    const names = info.tools.map((t) => t.name);
    for (const name of [
      'echo',
      'get-sum',
      'get-tiny-image',
      'get-structured-content',
      'get-annotated-message',
      'get-resource-links',
      'get-resource-reference',
      'trigger-long-running-operation',
    ]) {
      assert.ok(names.includes(name), `tool ${name} listed (have ${names})`);
    }
    const echo = info.tools.find((t) => t.name === 'echo');
    assert.equal(echo.inputSchema.properties.message.type, 'string');
    assert.deepEqual(echo.inputSchema.required, ['message']);
    assert.equal(echo.annotations?.readOnlyHint, true);
    const sum = info.tools.find((t) => t.name === 'get-sum');
    assert.deepEqual(Object.keys(sum.inputSchema.properties).sort(), ['a', 'b']);
    const structured = info.tools.find((t) => t.name === 'get-structured-content');
    assert.equal(structured.outputSchema?.type, 'object');
  });

  it('lists resources, resource templates and prompts', T, async () => {
    const uris = info.resources.map((r) => r.uri);
    assert.ok(uris.includes('demo://resource/static/document/features.md'), `resources: ${uris}`);
    assert.ok(info.resources.every((r) => r.mimeType === 'text/markdown'));
    assert.deepEqual(info.resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    const prompts = Object.fromEntries(info.prompts.map((p) => [p.name, p]));
    for (const name of ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']) {
      assert.ok(prompts[name], `prompt ${name}`);
    }
    assert.deepEqual(
      prompts['args-prompt'].arguments.map((a) => [a.name, a.required]),
      [
        ['city', true],
        ['state', false],
      ],
    );
  });

  it('calls echo', T, async () => {
    const r = await call(TS_SERVER, 'echo', { message: 'hello from oxmcp ✓' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json.content, [{ type: 'text', text: 'Echo: hello from oxmcp ✓' }]);
    assert.notEqual(r.json.isError, true);
  });

  it('calls get-sum', T, async () => {
    const r = await call(TS_SERVER, 'get-sum', { a: 2, b: 40.5 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts(r.json), ['The sum of 2 and 40.5 is 42.5.']);
  });

  it('calls get-tiny-image (image content)', T, async () => {
    const r = await call(TS_SERVER, 'get-tiny-image');
    assert.equal(r.code, 0, r.stderr);
    const image = r.json.content.find((c) => c.type === 'image');
    assert.ok(image, 'an image block');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual(b64(image.data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('calls get-structured-content (structuredContent)', T, async () => {
    const r = await call(TS_SERVER, 'get-structured-content', { location: 'Chicago' });
    assert.equal(r.code, 0, r.stderr);
    const sc = r.json.structuredContent;
    assert.equal(typeof sc.temperature, 'number');
    assert.equal(typeof sc.conditions, 'string');
    assert.equal(typeof sc.humidity, 'number');
    assert.deepEqual(JSON.parse(texts(r.json)[0]), sc);
  });

  it('calls get-annotated-message (annotations survive)', T, async () => {
    const r = await call(TS_SERVER, 'get-annotated-message', { messageType: 'success' });
    assert.equal(r.code, 0, r.stderr);
    const [block] = r.json.content;
    assert.equal(block.type, 'text');
    assert.deepEqual(block.annotations, { audience: ['user'], priority: 0.7 });
  });

  it('calls get-resource-links (resource_link content)', T, async () => {
    const r = await call(TS_SERVER, 'get-resource-links', { count: 2 });
    assert.equal(r.code, 0, r.stderr);
    const links = r.json.content.filter((c) => c.type === 'resource_link');
    assert.equal(links.length, 2);
    for (const l of links) assert.match(l.uri, /^demo:\/\/resource\/dynamic\/(text|blob)\/\d+$/);
  });

  it('calls get-resource-reference (embedded resource)', T, async () => {
    const r = await call(TS_SERVER, 'get-resource-reference', { resourceType: 'Text', resourceId: 3 });
    assert.equal(r.code, 0, r.stderr);
    const embedded = r.json.content.find((c) => c.type === 'resource');
    assert.equal(embedded.resource.uri, 'demo://resource/dynamic/text/3');
    assert.match(embedded.resource.text, /^Resource 3: /);
  });

  it('calls trigger-long-running-operation and reports its progress', T, async () => {
    const r = await call(TS_SERVER, 'trigger-long-running-operation', { duration: 0.3, steps: 3 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts(r.json), ['Long running operation completed. Duration: 0.3 seconds, Steps: 3.']);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('progress '));
    assert.deepEqual(progress, ['progress 1/3', 'progress 2/3', 'progress 3/3']);
  });

  it('invalid arguments come back as a tool error (exit 2)', T, async () => {
    const r = await call(TS_SERVER, 'echo', {});
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.json.isError, true);
    assert.match(texts(r.json)[0], /message/);
  });

  it('an unknown tool is reported as an error (exit 2)', T, async () => {
    const r = await call(TS_SERVER, 'no-such-tool');
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.json.isError, true);
    assert.match(texts(r.json)[0], /no-such-tool not found/);
  });

  it('reads a static markdown resource', T, async () => {
    const uri = 'demo://resource/static/document/features.md';
    const r = await ok(['read', '--json', uri], TS_SERVER);
    assert.equal(r.contents.length, 1);
    assert.equal(r.contents[0].uri, uri);
    assert.equal(r.contents[0].mimeType, 'text/markdown');
    assert.match(r.contents[0].text, /^# Everything Server - Features/);
  });

  it('reads template instances (text and blob)', T, async () => {
    const text = await ok(['read', '--json', 'demo://resource/dynamic/text/5'], TS_SERVER);
    assert.equal(text.contents[0].uri, 'demo://resource/dynamic/text/5');
    assert.match(text.contents[0].text, /^Resource 5: This is a plaintext resource/);
    const blob = await ok(['read', '--json', 'demo://resource/dynamic/blob/5'], TS_SERVER);
    assert.equal(blob.contents[0].uri, 'demo://resource/dynamic/blob/5');
    assert.equal(blob.contents[0].text, undefined);
    assert.match(b64(blob.contents[0].blob).toString('utf8'), /^Resource 5: This is a base64 blob/);
  });

  it('reading an unknown resource fails with the server error', T, async () => {
    const r = await oxmcp(['read', '--json', 'demo://resource/nope'], TS_SERVER);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /not found/i);
    assert.match(r.stderr, /-32602/);
  });

  it('gets prompts (no args, with args, with an embedded resource, completable)', T, async () => {
    const simple = await ok(['prompt', '--json', 'simple-prompt', '{}'], TS_SERVER);
    assert.deepEqual(simple.messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
    ]);
    const args = await ok(['prompt', '--json', 'args-prompt', '{"city":"Paris","state":"IDF"}'], TS_SERVER);
    assert.equal(args.messages[0].content.text, "What's weather in Paris, IDF?");
    const res = await ok(['prompt', '--json', 'resource-prompt', '{"resourceType":"Text","resourceId":"2"}'], TS_SERVER);
    assert.equal(res.messages.length, 2);
    assert.equal(res.messages[1].content.type, 'resource');
    assert.equal(res.messages[1].content.resource.uri, 'demo://resource/dynamic/text/2');
    const team = await ok(['prompt', '--json', 'completable-prompt', '{"department":"Engineering","name":"Alice"}'], TS_SERVER);
    assert.equal(team.messages[0].content.text, 'Please promote Alice to the head of the Engineering team.');
  });

  it('a prompt missing a required argument fails', T, async () => {
    const r = await oxmcp(['prompt', '--json', 'args-prompt', '{}'], TS_SERVER);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /city/);
  });
});

for (const era of ['session', 'auto']) {
describe(`oxmcp client (${era} era) -> official Python SDK server (python_server.py)`, GROUP, () => {
    // The official Python SDK 2.x server speaks both eras: auto settles on 2026-07-28.
    before(() => { process.env.OXMCP_ERA = era; });
    after(() => { delete process.env.OXMCP_ERA; });
    let info;
    before(async () => {
      assert.ok(existsSync(PYTHON), `${PYTHON} exists (run.sh creates the venv)`);
      info = await ok(['inspect', '--json'], PY_SERVER);
    });

    it('initializes: inspect shows serverInfo, protocol version, instructions', T, () => {
      assert.deepEqual(info.serverInfo, { name: 'oxmcp-interop-python', version: '1.2.3' });
      assert.equal(info.protocolVersion, era === 'session' ? '2025-11-25' : '2026-07-28');
      assert.equal(info.instructions, 'Interop fixture server for oxmcp (official Python SDK).');
      for (const cap of ['tools', 'resources', 'prompts']) assert.ok(info.capabilities[cap], `capability ${cap}`);
    });

    it('lists tools with schemas generated from Python signatures', T, async () => {
      const tools = Object.fromEntries(info.tools.map((t) => [t.name, t]));
      assert.deepEqual(Object.keys(tools).sort(), ['add', 'fail', 'greet']);
      assert.equal(tools.add.description, 'Add two integers and return the sum.');
      assert.equal(tools.add.inputSchema.properties.a.type, 'integer');
      assert.equal(tools.add.inputSchema.properties.b.type, 'integer');
      assert.deepEqual(tools.add.inputSchema.required.sort(), ['a', 'b']);
      assert.equal(tools.add.outputSchema.properties.result.type, 'integer');
      assert.equal(tools.greet.inputSchema.properties.name.type, 'string');
    });

    it('lists the resource, the template and the prompt', T, async () => {
      assert.deepEqual(
        info.resources.map((r) => [r.uri, r.name, r.mimeType]),
        [['interop://static/readme', 'readme', 'text/plain']],
      );
      assert.deepEqual(
        info.resourceTemplates.map((t) => [t.uriTemplate, t.name]),
        [['interop://users/{user_id}/profile', 'user_profile']],
      );
      assert.equal(info.prompts.length, 1);
      assert.equal(info.prompts[0].name, 'review_code');
      assert.deepEqual(
        info.prompts[0].arguments.map((a) => [a.name, a.required]),
        [
          ['code', true],
          ['language', false],
        ],
      );
    });

    it('calls add (text and structured content)', T, async () => {
      const r = await call(PY_SERVER, 'add', { a: 2, b: 40 });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(r.json), ['42']);
      assert.deepEqual(r.json.structuredContent, { result: 42 });
      assert.equal(r.json.isError, false);
    });

    it('calls greet', T, async () => {
      const r = await call(PY_SERVER, 'greet', { name: 'Ada' });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(r.json), ['Hello, Ada!']);
      assert.deepEqual(r.json.structuredContent, { result: 'Hello, Ada!' });
    });

    it('a tool that raises is a tool error (exit 2)', T, async () => {
      const r = await call(PY_SERVER, 'fail', { reason: 'testing' });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.json.isError, true);
      assert.match(texts(r.json)[0], /fail/);
    });

    it('invalid arguments are a tool error naming the argument (exit 2)', T, async () => {
      const r = await call(PY_SERVER, 'add', { a: 'not a number', b: 1 });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.json.isError, true);
      assert.match(texts(r.json)[0], /\ba\b[\s\S]*integer/);
    });

    it('an unknown tool is reported as an error (exit 2)', T, async () => {
      const r = await call(PY_SERVER, 'no_such_tool');
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.json.isError, true);
      assert.match(texts(r.json)[0], /no_such_tool/);
    });

    it('reads the static resource and a template instance', T, async () => {
      const readme = await ok(['read', '--json', 'interop://static/readme'], PY_SERVER);
      assert.deepEqual(readme.contents, [
        { uri: 'interop://static/readme', mimeType: 'text/plain', text: 'oxmcp interop readme: static text' },
      ]);
      const profile = await ok(['read', '--json', 'interop://users/7/profile'], PY_SERVER);
      assert.deepEqual(profile.contents, [
        { uri: 'interop://users/7/profile', mimeType: 'text/plain', text: 'profile of user 7' },
      ]);
    });

    it('reading an unknown resource fails', T, async () => {
      const r = await oxmcp(['read', '--json', 'interop://nope'], PY_SERVER);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /interop:\/\/nope/);
    });

    it('gets the prompt with its argument (and the default for the optional one)', T, async () => {
      const rust = await ok(['prompt', '--json', 'review_code', '{"code":"fn main() {}"}'], PY_SERVER);
      assert.equal(rust.description, 'Ask for a review of some code in a given language.');
      assert.deepEqual(rust.messages, [
        { role: 'user', content: { type: 'text', text: 'Please review this rust code:\nfn main() {}' } },
      ]);
      const py = await ok(['prompt', '--json', 'review_code', '{"code":"print(1)","language":"python"}'], PY_SERVER);
      assert.equal(py.messages[0].content.text, 'Please review this python code:\nprint(1)');
    });

    it('a prompt missing its required argument fails with the server message', T, async () => {
      const r = await oxmcp(['prompt', '--json', 'review_code', '{}'], PY_SERVER);
      assert.notEqual(r.code, 0);
      // In 2026-07-28 mode the Python SDK server answers this with a bare -32603.
      if (era === 'session') {
        assert.match(r.stderr, /Missing required arguments/);
        assert.match(r.stderr, /code/);
      }
    });
  });
}
