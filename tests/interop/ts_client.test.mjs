// The official TypeScript SDK client (@modelcontextprotocol/sdk) against the oxmcp server
// (`oxmcp everything-server --stdio`), over stdio.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

import { b64, EXPECTED_PROMPTS, EXPECTED_TOOLS, oxmcpBin, PNG_SIGNATURE, sleep, waitFor } from './helpers.mjs';

const T = { timeout: 30_000 };

let transport;
let client;
/** Every JSON-RPC message in wire order: { dir: 'in' | 'out', msg }. */
const wire = [];
/** notifications/message params received by the client's notification handler. */
const logs = [];
/** Errors the SDK reported through client.onerror. */
const clientErrors = [];
/** Requests the server sent to the client. */
const samplingRequests = [];
const elicitRequests = [];
/** What the elicitation handler answers; tests replace it. */
let elicitAnswer = () => ({ action: 'decline' });

/**
 * The SDK hands a notification to its handler in a microtask but completes a response
 * synchronously, so when a notification and the response right behind it arrive in one
 * stdout chunk, the notification is handled after the request has resolved: a final
 * progress notification is then dropped as "unknown token" (typescript-sdk issue #2580)
 * and logs show up late. This shim records the wire and hands the SDK one message per
 * macrotask, in wire order, so each notification is fully handled before the next message:
 * the client then sees exactly what the server sent, in the order it sent it. A server that
 * sent progress or logs after the response would still be caught (they would arrive after
 * the request resolved).
 */
function deliverInWireOrder(t) {
  let deliver;
  let chain = Promise.resolve();
  const inOrder = (msg, extra) => {
    wire.push({ dir: 'in', msg });
    chain = chain.then(() => new Promise((r) => setImmediate(r))).then(() => deliver?.(msg, extra));
  };
  // The SDK assigns transport.onmessage in connect(); keep ours in front of whatever it sets.
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    get: () => (deliver ? inOrder : undefined),
    set: (fn) => {
      deliver = fn;
    },
  });
  const send = t.send.bind(t);
  t.send = (msg, options) => {
    wire.push({ dir: 'out', msg });
    return send(msg, options);
  };
}

/** Text of the single text block of a tool result. */
function onlyText(result) {
  assert.equal(result.content.length, 1, `expected one content block: ${JSON.stringify(result)}`);
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

/** Parses "User response: action=<a>, content=<json>" from the elicitation tools. */
function parseUserResponse(text) {
  const m = /^User response: action=(\w+), content=(.*)$/s.exec(text);
  assert.ok(m, `unexpected elicitation result text: ${text}`);
  return { action: m[1], content: JSON.parse(m[2]) };
}

before(async () => {
  transport = new StdioClientTransport({
    command: oxmcpBin(),
    args: ['everything-server', '--stdio'],
    stderr: 'pipe',
  });
  client = new Client(
    { name: 'oxmcp-interop-ts-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.onerror = (e) => clientErrors.push(e);
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    samplingRequests.push(request.params);
    const first = request.params.messages[0];
    return {
      role: 'assistant',
      model: 'interop-fake-model',
      stopReason: 'endTurn',
      content: { type: 'text', text: `handler saw "${first.content.text}"` },
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitRequests.push(request.params);
    return elicitAnswer(request.params);
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  deliverInWireOrder(transport);
  await client.connect(transport);
});

after(async () => {
  const pid = transport?.pid;
  await client?.close();
  if (pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already exited
    }
  }
});

describe('TS SDK client -> oxmcp server: initialize and basics', () => {
  it('negotiates the protocol and sees server info and capabilities', T, () => {
    assert.deepEqual(client.getServerVersion(), { name: 'oxmcp-everything', version: '0.1.0' });
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools, 'tools capability');
    assert.ok(caps.resources?.subscribe, 'resources.subscribe capability');
    assert.ok(caps.prompts, 'prompts capability');
    assert.ok(caps.logging, 'logging capability');
    assert.ok(caps.completions, 'completions capability');
    assert.match(client.getInstructions() ?? '', /test server/i);
    // The handshake on the wire: initialize -> result -> notifications/initialized.
    assert.equal(wire[0].dir, 'out');
    assert.equal(wire[0].msg.method, 'initialize');
    assert.equal(wire[0].msg.params.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.deepEqual(wire[0].msg.params.capabilities.sampling, {});
    const result = wire.find((m) => m.dir === 'in' && m.msg.id === wire[0].msg.id);
    assert.equal(result.msg.result.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.ok(wire.some((m) => m.dir === 'out' && m.msg.method === 'notifications/initialized'));
  });

  it('answers ping', T, async () => {
    assert.deepEqual(await client.ping(), {});
  });

  it('lists every expected tool with its input schema', T, async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `tool ${name} is listed`);
    assert.equal(new Set(names).size, names.length, 'tool names are unique');
    const echo = tools.find((t) => t.name === 'echo');
    assert.equal(echo.inputSchema.type, 'object');
    assert.deepEqual(echo.inputSchema.properties.text, { type: 'string' });
    assert.deepEqual(echo.inputSchema.required, ['text']);
    const slow = tools.find((t) => t.name === 'slow');
    assert.deepEqual(slow.inputSchema.required.sort(), ['ms', 'tag']);
  });
});

describe('TS SDK client -> oxmcp server: tools', () => {
  it('echo returns exactly its text', T, async () => {
    const text = 'multi\nline ✓ "quoted" {json}';
    const r = await client.callTool({ name: 'echo', arguments: { text } });
    assert.equal(onlyText(r), text);
    assert.notEqual(r.isError, true);
  });

  it('slow completes normally when not cancelled', T, async () => {
    const r = await client.callTool({ name: 'slow', arguments: { tag: 11, ms: 50 } });
    assert.equal(onlyText(r), 'slow 11 done');
  });

  it('test_simple_text', T, async () => {
    const r = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.equal(onlyText(r), 'This is a simple text response for testing.');
  });

  it('test_image_content returns a PNG image block', T, async () => {
    const r = await client.callTool({ name: 'test_image_content', arguments: {} });
    assert.equal(r.content.length, 1);
    const [img] = r.content;
    assert.equal(img.type, 'image');
    assert.equal(img.mimeType, 'image/png');
    assert.deepEqual(b64(img.data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('test_audio_content returns a WAV audio block', T, async () => {
    const r = await client.callTool({ name: 'test_audio_content', arguments: {} });
    assert.equal(r.content.length, 1);
    const [audio] = r.content;
    assert.equal(audio.type, 'audio');
    assert.equal(audio.mimeType, 'audio/wav');
    const bytes = b64(audio.data);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WAVE');
  });

  it('test_embedded_resource returns an embedded text resource', T, async () => {
    const r = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
    assert.deepEqual(r.content, [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]);
  });

  it('test_multiple_content_types returns text, image and resource', T, async () => {
    const r = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    assert.deepEqual(
      r.content.map((c) => c.type),
      ['text', 'image', 'resource'],
    );
    assert.equal(r.content[0].text, 'Multiple content types test:');
    assert.equal(r.content[1].mimeType, 'image/png');
    assert.deepEqual(b64(r.content[1].data).subarray(0, 8), PNG_SIGNATURE);
    assert.equal(r.content[2].resource.uri, 'test://mixed-content-resource');
    assert.equal(r.content[2].resource.mimeType, 'application/json');
    assert.equal(typeof JSON.parse(r.content[2].resource.text), 'object');
  });

  it('test_tool_with_logging: the client receives its 3 log messages', T, async () => {
    await client.setLoggingLevel('debug');
    const before = logs.length;
    const r = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.equal(onlyText(r), 'Tool with logging executed successfully');
    const got = logs.slice(before);
    assert.deepEqual(
      got.map((l) => [l.level, l.logger, l.data]),
      [
        ['info', 'everything', 'Tool execution started'],
        ['info', 'everything', 'Tool processing data'],
        ['info', 'everything', 'Tool execution completed'],
      ],
    );
  });

  it('logging/setLevel filters: at "error" the info logs are not sent', T, async () => {
    await client.setLoggingLevel('error');
    try {
      const before = logs.length;
      const r = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      assert.equal(onlyText(r), 'Tool with logging executed successfully');
      await sleep(100);
      assert.deepEqual(logs.slice(before), []);
    } finally {
      await client.setLoggingLevel('debug');
    }
  });

  it('test_tool_with_progress: onprogress sees 0, 50, 100 of 100 before the result', T, async () => {
    const seen = [];
    const errorsBefore = clientErrors.length;
    const wireBefore = wire.length;
    const r = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    assert.match(onlyText(r), /^Progress test completed/);
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total]),
      [
        [0, 100],
        [50, 100],
        [100, 100],
      ],
    );
    assert.deepEqual(clientErrors.slice(errorsBefore), [], 'no SDK errors (e.g. progress for an unknown token)');
    // On the wire: the request carried a progress token, and every progress notification
    // for it was sent before the response.
    const mine = wire.slice(wireBefore);
    const req = mine.find((m) => m.dir === 'out' && m.msg.method === 'tools/call');
    const token = req.msg.params._meta.progressToken;
    const responseAt = mine.findIndex((m) => m.dir === 'in' && m.msg.id === req.msg.id && !m.msg.method);
    const progressAt = mine
      .map((m, i) => [m, i])
      .filter(([m]) => m.dir === 'in' && m.msg.method === 'notifications/progress')
      .map(([m, i]) => {
        assert.equal(m.msg.params.progressToken, token);
        return i;
      });
    assert.equal(progressAt.length, 3);
    assert.ok(progressAt.every((i) => i < responseAt), 'progress notifications precede the response');
  });

  it('test_error_handling returns isError with its message', T, async () => {
    const r = await client.callTool({ name: 'test_error_handling', arguments: {} });
    assert.equal(r.isError, true);
    assert.equal(onlyText(r), 'This tool intentionally returns an error for testing');
  });

  it('test_sampling: the server samples through the client handler', T, async () => {
    const before = samplingRequests.length;
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is 6 x 7?' } });
    assert.equal(onlyText(r), 'LLM response: handler saw "What is 6 x 7?"');
    assert.equal(samplingRequests.length, before + 1);
    const req = samplingRequests.at(-1);
    assert.deepEqual(req.messages, [{ role: 'user', content: { type: 'text', text: 'What is 6 x 7?' } }]);
    assert.equal(typeof req.maxTokens, 'number');
  });

  it('test_elicitation: accept with content', T, async () => {
    elicitAnswer = () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.org' } });
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.deepEqual(parseUserResponse(onlyText(r)), {
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.org' },
    });
    const req = elicitRequests.at(-1);
    assert.equal(req.message, 'Who are you?');
    assert.equal(req.requestedSchema.type, 'object');
    assert.deepEqual(Object.keys(req.requestedSchema.properties).sort(), ['email', 'username']);
  });

  it('test_elicitation: decline', T, async () => {
    elicitAnswer = () => ({ action: 'decline' });
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Share?' } });
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'decline', content: null });
  });

  it('test_elicitation_sep1034_defaults: the schema carries defaults; answering them round-trips', T, async () => {
    elicitAnswer = (params) => ({
      action: 'accept',
      content: Object.fromEntries(Object.entries(params.requestedSchema.properties).map(([k, s]) => [k, s.default])),
    });
    const r = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    const expected = { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true };
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'accept', content: expected });
    const props = elicitRequests.at(-1).requestedSchema.properties;
    assert.deepEqual(props.status.enum, ['active', 'inactive', 'pending']);
  });

  it('test_elicitation_sep1330_enums: enum schemas arrive and chosen values round-trip', T, async () => {
    const answer = {
      untitledSingle: 'option2',
      titledSingle: 'value3',
      legacyEnum: 'opt1',
      untitledMulti: ['option1', 'option3'],
      titledMulti: ['value2'],
    };
    elicitAnswer = () => ({ action: 'accept', content: answer });
    const r = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'accept', content: answer });
    const props = elicitRequests.at(-1).requestedSchema.properties;
    assert.deepEqual(props.untitledSingle.enum, ['option1', 'option2', 'option3']);
    assert.deepEqual(
      props.titledSingle.oneOf.map((o) => o.const),
      ['value1', 'value2', 'value3'],
    );
    assert.deepEqual(props.legacyEnum.enumNames, ['Option One', 'Option Two', 'Option Three']);
    assert.equal(props.untitledMulti.type, 'array');
    assert.equal(props.titledMulti.items.anyOf.length, 3);
  });

  it('json_schema_2020_12_tool accepts $ref/$defs arguments', T, async () => {
    // The schema asks for a phone or an email (allOf/anyOf, if/then/else).
    const args = { name: 'Ada', address: { street: '1 Analytical Way', city: 'London' }, email: 'ada@example.com' };
    const r = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
    const text = onlyText(r);
    assert.match(text, /^Received: /);
    assert.deepEqual(JSON.parse(text.slice('Received: '.length)), args);
  });

  it('json_schema_2020_12_tool rejects additional properties as a tool error', T, async () => {
    const r = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'x', extra: 1 } });
    assert.equal(r.isError, true);
    assert.match(onlyText(r), /extra|additional/i);
  });

  it('test_reconnection', T, async () => {
    const r = await client.callTool({ name: 'test_reconnection', arguments: {} });
    assert.equal(onlyText(r), 'Reconnection test completed');
  });

  it('echo with invalid arguments (text: 5) is a tool error naming `text`', T, async () => {
    const r = await client.callTool({ name: 'echo', arguments: { text: 5 } });
    assert.equal(r.isError, true);
    assert.match(onlyText(r), /\btext\b/);
  });

  it('an unknown tool is a JSON-RPC error -32602 (McpError)', T, async () => {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
      assert.ok(e instanceof McpError, `McpError, got ${e}`);
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.equal(e.code, -32602);
      assert.match(e.message, /no_such_tool/);
      return true;
    });
  });
});

describe('TS SDK client -> oxmcp server: cancellation', () => {
  it('aborting slow rejects promptly and the server handler observes the cancel', T, async () => {
    const tag = 1000 + Math.floor(Math.random() * 9000);
    const wireBefore = wire.length;
    const controller = new AbortController();
    const started = performance.now();
    const call = client.callTool({ name: 'slow', arguments: { tag, ms: 10_000 } }, undefined, {
      signal: controller.signal,
      timeout: 60_000,
    });
    setTimeout(() => controller.abort('interop test cancels'), 200);
    await assert.rejects(call);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 2_000, `the call rejected after ${Math.round(elapsed)} ms`);

    // The client sent notifications/cancelled for the request id...
    const req = wire.slice(wireBefore).find((m) => m.dir === 'out' && m.msg.method === 'tools/call');
    assert.equal(req.msg.params.arguments.tag, tag);
    const cancel = wire
      .slice(wireBefore)
      .find((m) => m.dir === 'out' && m.msg.method === 'notifications/cancelled');
    assert.ok(cancel, 'notifications/cancelled was sent');
    assert.equal(cancel.msg.params.requestId, req.msg.id);

    // ...and the server's handler saw its cancellation token fire: it logs this line.
    const line = `slow tag=${tag} cancelled`;
    const log = await waitFor(() => logs.find((l) => l.data === line), 5_000, `log "${line}"`);
    assert.equal(log.logger, 'slow');
    assert.ok(performance.now() - started < 5_000, 'the cancel reached the handler long before ms=10000');

    // A cancelled request gets no response.
    await sleep(300);
    const response = wire.find((m) => m.dir === 'in' && m.msg.id === req.msg.id && !m.msg.method);
    assert.equal(response, undefined, `no response to a cancelled request, got ${JSON.stringify(response?.msg)}`);

    // The session is still healthy.
    const r = await client.callTool({ name: 'echo', arguments: { text: 'still alive' } });
    assert.equal(onlyText(r), 'still alive');
  });
});

describe('TS SDK client -> oxmcp server: resources', () => {
  it('lists resources and templates', T, async () => {
    const { resources } = await client.listResources();
    const byUri = Object.fromEntries(resources.map((r) => [r.uri, r]));
    assert.equal(byUri['test://static-text']?.mimeType, 'text/plain');
    assert.equal(byUri['test://static-binary']?.mimeType, 'image/png');
    assert.equal(byUri['test://watched-resource']?.mimeType, 'text/plain');
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'test://template/{id}/data'));
  });

  it('reads a text resource', T, async () => {
    const r = await client.readResource({ uri: 'test://static-text' });
    assert.deepEqual(r.contents, [
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
  });

  it('reads a binary (blob) resource', T, async () => {
    const r = await client.readResource({ uri: 'test://static-binary' });
    assert.equal(r.contents.length, 1);
    const [c] = r.contents;
    assert.equal(c.uri, 'test://static-binary');
    assert.equal(c.mimeType, 'image/png');
    assert.equal(c.text, undefined);
    assert.deepEqual(b64(c.blob).subarray(0, 8), PNG_SIGNATURE);
  });

  it('reads the watched resource and can subscribe/unsubscribe to it', T, async () => {
    const r = await client.readResource({ uri: 'test://watched-resource' });
    assert.equal(r.contents[0].text, 'Watched resource content');
    assert.deepEqual(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
    assert.deepEqual(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
  });

  it('reads a template instance: test://template/42/data has id 42', T, async () => {
    const r = await client.readResource({ uri: 'test://template/42/data' });
    assert.equal(r.contents.length, 1);
    assert.equal(r.contents[0].uri, 'test://template/42/data');
    const data = JSON.parse(r.contents[0].text);
    assert.equal(data.id, '42');
    assert.match(data.data, /42/);
  });

  it('an unknown resource is a JSON-RPC error', T, async () => {
    await assert.rejects(client.readResource({ uri: 'test://does-not-exist' }), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32002);
      assert.match(e.message, /test:\/\/does-not-exist/);
      return true;
    });
  });
});

describe('TS SDK client -> oxmcp server: prompts and completion', () => {
  it('lists every prompt with its arguments', T, async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [...EXPECTED_PROMPTS].sort());
    const withArgs = prompts.find((p) => p.name === 'test_prompt_with_arguments');
    assert.deepEqual(
      withArgs.arguments.map((a) => [a.name, a.required]),
      [
        ['arg1', true],
        ['arg2', true],
      ],
    );
  });

  it('gets test_simple_prompt', T, async () => {
    const r = await client.getPrompt({ name: 'test_simple_prompt' });
    assert.deepEqual(r.messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
  });

  it('gets test_prompt_with_arguments', T, async () => {
    const r = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'first', arg2: 'second' } });
    assert.deepEqual(r.messages, [
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='first', arg2='second'" } },
    ]);
  });

  it('gets test_prompt_with_embedded_resource', T, async () => {
    const r = await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://static-text' },
    });
    assert.equal(r.messages.length, 2);
    assert.equal(r.messages[0].content.type, 'resource');
    assert.equal(r.messages[0].content.resource.uri, 'test://static-text');
    assert.equal(typeof r.messages[0].content.resource.text, 'string');
    assert.equal(r.messages[1].content.type, 'text');
  });

  it('gets test_prompt_with_image', T, async () => {
    const r = await client.getPrompt({ name: 'test_prompt_with_image' });
    const image = r.messages.find((m) => m.content.type === 'image');
    assert.ok(image, 'an image message');
    assert.equal(image.content.mimeType, 'image/png');
    assert.deepEqual(b64(image.content.data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('a prompt missing a required argument is a JSON-RPC error -32602', T, async () => {
    await assert.rejects(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /arg2/);
      return true;
    });
  });

  it('complete() returns values for a prompt argument, filtered by prefix', T, async () => {
    const ref = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
    const all = await client.complete({ ref, argument: { name: 'arg1', value: '' } });
    assert.ok(all.completion.values.length > 0, 'some values');
    const some = await client.complete({ ref, argument: { name: 'arg1', value: 'al' } });
    assert.ok(some.completion.values.length > 0, 'some values for "al"');
    assert.ok(
      some.completion.values.every((v) => v.startsWith('al')),
      `values start with "al": ${some.completion.values}`,
    );
    assert.ok(some.completion.values.length < all.completion.values.length);
  });
});
