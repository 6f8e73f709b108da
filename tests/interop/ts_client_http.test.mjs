// The official TypeScript SDK client (@modelcontextprotocol/sdk) against the oxmcp server
// over HTTP: `oxmcp everything-server --http 127.0.0.1:PORT` with
//   - StreamableHTTPClientTransport at /mcp (SSE responses: the default mode),
//   - SSEClientTransport at the legacy /sse endpoint,
//   - StreamableHTTPClientTransport against --json-response and --stateless servers.
// Every HTTP exchange is recorded through the transports' `fetch` option, and every JSON-RPC
// message through recordWire(), so the tests check the HTTP side as well as the results.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

import {
  b64,
  PNG_SIGNATURE,
  recordingFetch,
  recordWire,
  sleep,
  startOxmcpHttp,
  waitFor,
  EXPECTED_PROMPTS,
  EXPECTED_TOOLS,
} from './helpers.mjs';

const T = { timeout: 30_000 };

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

const mediaType = (contentType) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/**
 * A TS SDK client connected over HTTP with everything recorded:
 *   kind 'streamable' (StreamableHTTPClientTransport) or 'sse' (SSEClientTransport);
 *   handlers: register the sampling / elicitation handlers (and declare the capabilities).
 * Returns { client, transport, wire, http, logs, errors, samplingRequests, elicitRequests,
 *   setElicitAnswer(fn), close() }.
 */
async function connect(url, { kind = 'streamable', handlers = false } = {}) {
  const s = {
    wire: [],
    http: [],
    logs: [],
    errors: [],
    samplingRequests: [],
    elicitRequests: [],
    elicitAnswer: () => ({ action: 'decline' }),
  };
  const opts = { fetch: recordingFetch(s.http) };
  s.transport =
    kind === 'sse' ? new SSEClientTransport(new URL(url), opts) : new StreamableHTTPClientTransport(new URL(url), opts);
  s.client = new Client(
    { name: 'oxmcp-interop-ts-http-client', version: '1.0.0' },
    { capabilities: handlers ? { sampling: {}, elicitation: {} } : {} },
  );
  s.client.onerror = (e) => s.errors.push(e);
  if (handlers) {
    s.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      s.samplingRequests.push(request.params);
      const first = request.params.messages[0];
      return {
        role: 'assistant',
        model: 'interop-fake-model',
        stopReason: 'endTurn',
        content: { type: 'text', text: `handler saw "${first.content.text}"` },
      };
    });
    s.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      s.elicitRequests.push(request.params);
      return s.elicitAnswer(request.params);
    });
  }
  s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    s.logs.push(n.params);
  });
  recordWire(s.transport, s.wire);
  await s.client.connect(s.transport);
  s.close = async () => {
    await s.client.close().catch(() => {});
  };
  return s;
}

/** The recorded POST whose JSON-RPC body is the request `method` (the last one, or the one with `id`). */
function postOf(http, method, id) {
  const posts = http.filter((x) => x.method === 'POST' && x.body?.method === method && (id === undefined || x.body.id === id));
  assert.ok(posts.length > 0, `a POST of ${method}`);
  return posts.at(-1);
}

/** A Streamable HTTP server's answer to a standalone GET: an SSE stream or 405. */
function assertGetAnswered(http) {
  for (const get of http.filter((x) => x.method === 'GET')) {
    if (get.status === 405) continue;
    assert.equal(get.status, 200, `GET answered ${get.status}`);
    assert.equal(mediaType(get.contentType), 'text/event-stream');
  }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP, default mode (SSE responses), with sampling and elicitation handlers.
// ---------------------------------------------------------------------------------------------

let server;
let s;

before(async () => {
  server = await startOxmcpHttp();
  s = await connect(server.url, { handlers: true });
});

after(async () => {
  await s?.close();
  await server?.stop();
});

describe('TS SDK client -> oxmcp over Streamable HTTP: session', () => {
  it('initializes: server info, capabilities, instructions, protocol version', T, () => {
    assert.deepEqual(s.client.getServerVersion(), { name: 'oxmcp-everything', version: '0.1.0' });
    const caps = s.client.getServerCapabilities();
    for (const cap of ['tools', 'prompts', 'logging', 'completions']) assert.ok(caps[cap], `capability ${cap}`);
    assert.ok(caps.resources?.subscribe, 'resources.subscribe capability');
    assert.match(s.client.getInstructions() ?? '', /test server/i);
    const init = s.wire.find((m) => m.dir === 'in' && m.msg.id === s.wire[0].msg.id);
    assert.equal(s.wire[0].msg.method, 'initialize');
    assert.equal(init.msg.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  it('the initialize POST is answered with an SSE stream and a session id', T, () => {
    const [first] = s.http;
    assert.equal(first.method, 'POST');
    assert.equal(first.body.method, 'initialize');
    assert.equal(first.status, 200);
    assert.equal(mediaType(first.contentType), 'text/event-stream');
    assert.match(first.sessionId ?? '', /^[\x21-\x7e]+$/, 'a visible-ASCII mcp-session-id');
    assert.equal(s.transport.sessionId, first.sessionId);
  });

  it('notifications/initialized is accepted with 202 and the standalone GET stream opens', T, async () => {
    const initialized = s.http.find((x) => x.body?.method === 'notifications/initialized');
    assert.equal(initialized.status, 202);
    assert.equal(initialized.requestHeaders['mcp-session-id'], s.transport.sessionId);
    const get = await waitFor(() => s.http.find((x) => x.method === 'GET' && x.status !== undefined), 5_000, 'the GET stream');
    assert.equal(get.requestHeaders['mcp-session-id'], s.transport.sessionId);
    assert.equal(get.status, 200, `GET /mcp answered ${get.status}`);
    assert.equal(mediaType(get.contentType), 'text/event-stream');
  });

  it('answers ping on the session', T, async () => {
    assert.deepEqual(await s.client.ping(), {});
    const post = postOf(s.http, 'ping');
    assert.equal(post.status, 200);
    assert.equal(post.requestHeaders['mcp-session-id'], s.transport.sessionId);
    assert.equal(post.requestHeaders['mcp-protocol-version'], LATEST_PROTOCOL_VERSION);
  });

  it('lists every expected tool with its input schema', T, async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `tool ${name} is listed`);
    const echo = tools.find((t) => t.name === 'echo');
    assert.deepEqual(echo.inputSchema.properties.text, { type: 'string' });
    assert.deepEqual(echo.inputSchema.required, ['text']);
  });
});

describe('TS SDK client -> oxmcp over Streamable HTTP: tools', () => {
  it('echo returns exactly its text (a POST answered by an SSE stream)', T, async () => {
    const text = 'multi\nline ✓ "quoted" {json}\n\ndata: not an SSE field';
    const r = await s.client.callTool({ name: 'echo', arguments: { text } });
    assert.equal(onlyText(r), text);
    assert.notEqual(r.isError, true);
    const post = postOf(s.http, 'tools/call');
    assert.equal(post.body.params.name, 'echo');
    assert.equal(post.status, 200);
    assert.equal(mediaType(post.contentType), 'text/event-stream');
  });

  it('slow completes normally when not cancelled', T, async () => {
    const r = await s.client.callTool({ name: 'slow', arguments: { tag: 11, ms: 50 } });
    assert.equal(onlyText(r), 'slow 11 done');
  });

  it('test_simple_text', T, async () => {
    const r = await s.client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.equal(onlyText(r), 'This is a simple text response for testing.');
  });

  it('test_image_content returns a PNG image block', T, async () => {
    const r = await s.client.callTool({ name: 'test_image_content', arguments: {} });
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0].type, 'image');
    assert.equal(r.content[0].mimeType, 'image/png');
    assert.deepEqual(b64(r.content[0].data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('test_audio_content returns a WAV audio block', T, async () => {
    const r = await s.client.callTool({ name: 'test_audio_content', arguments: {} });
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0].type, 'audio');
    assert.equal(r.content[0].mimeType, 'audio/wav');
    const bytes = b64(r.content[0].data);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WAVE');
  });

  it('test_embedded_resource returns an embedded text resource', T, async () => {
    const r = await s.client.callTool({ name: 'test_embedded_resource', arguments: {} });
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
    const r = await s.client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    assert.deepEqual(
      r.content.map((c) => c.type),
      ['text', 'image', 'resource'],
    );
    assert.equal(r.content[0].text, 'Multiple content types test:');
    assert.deepEqual(b64(r.content[1].data).subarray(0, 8), PNG_SIGNATURE);
    assert.equal(r.content[2].resource.uri, 'test://mixed-content-resource');
    assert.equal(typeof JSON.parse(r.content[2].resource.text), 'object');
  });

  it('test_tool_with_logging: the client receives its 3 log notifications', T, async () => {
    await s.client.setLoggingLevel('debug');
    const before = s.logs.length;
    const r = await s.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.equal(onlyText(r), 'Tool with logging executed successfully');
    await waitFor(() => s.logs.length >= before + 3, 2_000, '3 log notifications');
    assert.deepEqual(
      s.logs.slice(before).map((l) => [l.level, l.logger, l.data]),
      [
        ['info', 'everything', 'Tool execution started'],
        ['info', 'everything', 'Tool processing data'],
        ['info', 'everything', 'Tool execution completed'],
      ],
    );
  });

  it('logging/setLevel filters: at "error" the info logs are not sent', T, async () => {
    await s.client.setLoggingLevel('error');
    try {
      const before = s.logs.length;
      const r = await s.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      assert.equal(onlyText(r), 'Tool with logging executed successfully');
      await sleep(200);
      assert.deepEqual(s.logs.slice(before), []);
    } finally {
      await s.client.setLoggingLevel('debug');
    }
  });

  it('test_tool_with_progress: onprogress sees 0, 50, 100 of 100 before the result', T, async () => {
    const seen = [];
    const errorsBefore = s.errors.length;
    const wireBefore = s.wire.length;
    const r = await s.client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
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
    assert.deepEqual(s.errors.slice(errorsBefore), [], 'no SDK errors (e.g. progress for an unknown token)');
    const mine = s.wire.slice(wireBefore);
    const req = mine.find((m) => m.dir === 'out' && m.msg.method === 'tools/call');
    const token = req.msg.params._meta.progressToken;
    const responseAt = mine.findIndex((m) => m.dir === 'in' && m.msg.id === req.msg.id && !m.msg.method);
    const progress = mine
      .map((m, i) => [m, i])
      .filter(([m]) => m.dir === 'in' && m.msg.method === 'notifications/progress');
    assert.equal(progress.length, 3);
    for (const [m, i] of progress) {
      assert.equal(m.msg.params.progressToken, token);
      assert.ok(i < responseAt, 'progress precedes the response');
    }
  });

  it('test_error_handling returns isError with its message', T, async () => {
    const r = await s.client.callTool({ name: 'test_error_handling', arguments: {} });
    assert.equal(r.isError, true);
    assert.equal(onlyText(r), 'This tool intentionally returns an error for testing');
  });

  it('test_sampling: the server samples through the client handler (answer POSTed back)', T, async () => {
    const before = s.samplingRequests.length;
    const httpBefore = s.http.length;
    const r = await s.client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is 6 x 7?' } });
    assert.equal(onlyText(r), 'LLM response: handler saw "What is 6 x 7?"');
    assert.equal(s.samplingRequests.length, before + 1);
    assert.deepEqual(s.samplingRequests.at(-1).messages, [
      { role: 'user', content: { type: 'text', text: 'What is 6 x 7?' } },
    ]);
    // The client's answer to sampling/createMessage went out as its own POST, accepted with 202.
    const answer = s.http.slice(httpBefore).find((x) => x.method === 'POST' && x.body?.result?.model === 'interop-fake-model');
    assert.ok(answer, 'the sampling result was POSTed');
    await answer.settled;
    assert.equal(answer.status, 202);
  });

  it('test_elicitation: accept with content', T, async () => {
    s.elicitAnswer = () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.org' } });
    const r = await s.client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.deepEqual(parseUserResponse(onlyText(r)), {
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.org' },
    });
    const req = s.elicitRequests.at(-1);
    assert.equal(req.message, 'Who are you?');
    assert.deepEqual(Object.keys(req.requestedSchema.properties).sort(), ['email', 'username']);
  });

  it('test_elicitation: decline', T, async () => {
    s.elicitAnswer = () => ({ action: 'decline' });
    const r = await s.client.callTool({ name: 'test_elicitation', arguments: { message: 'Share?' } });
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'decline', content: null });
  });

  it('test_elicitation_sep1034_defaults: defaults arrive and round-trip', T, async () => {
    s.elicitAnswer = (params) => ({
      action: 'accept',
      content: Object.fromEntries(Object.entries(params.requestedSchema.properties).map(([k, v]) => [k, v.default])),
    });
    const r = await s.client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    const expected = { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true };
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'accept', content: expected });
  });

  it('test_elicitation_sep1330_enums: enum schemas arrive and chosen values round-trip', T, async () => {
    const answer = {
      untitledSingle: 'option2',
      titledSingle: 'value3',
      legacyEnum: 'opt1',
      untitledMulti: ['option1', 'option3'],
      titledMulti: ['value2'],
    };
    s.elicitAnswer = () => ({ action: 'accept', content: answer });
    const r = await s.client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    assert.deepEqual(parseUserResponse(onlyText(r)), { action: 'accept', content: answer });
    const props = s.elicitRequests.at(-1).requestedSchema.properties;
    assert.deepEqual(props.untitledSingle.enum, ['option1', 'option2', 'option3']);
    assert.deepEqual(
      props.titledSingle.oneOf.map((o) => o.const),
      ['value1', 'value2', 'value3'],
    );
  });

  it('json_schema_2020_12_tool accepts $ref/$defs arguments and rejects extras', T, async () => {
    // The schema asks for a phone or an email (allOf/anyOf, if/then/else).
    const args = { name: 'Ada', address: { street: '1 Analytical Way', city: 'London' }, email: 'ada@example.com' };
    const r = await s.client.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
    const text = onlyText(r);
    assert.match(text, /^Received: /);
    assert.deepEqual(JSON.parse(text.slice('Received: '.length)), args);
    const bad = await s.client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'x', extra: 1 } });
    assert.equal(bad.isError, true);
    assert.match(onlyText(bad), /extra|additional/i);
  });

  it('test_reconnection: the server closes the stream, the client resumes with Last-Event-ID', T, async () => {
    const httpBefore = s.http.length;
    const r = await s.client.callTool({ name: 'test_reconnection', arguments: {} });
    assert.equal(onlyText(r), 'Reconnection test completed');
    // The tools/call POST stream ended before the response (after an event with an id); the
    // SDK resumed with GET + Last-Event-ID and got the response on that stream.
    const mine = s.http.slice(httpBefore);
    const post = mine.find((x) => x.body?.method === 'tools/call');
    assert.equal(mediaType(post.contentType), 'text/event-stream');
    const resume = mine.find((x) => x.method === 'GET' && x.requestHeaders['last-event-id']);
    assert.ok(resume, `a GET with Last-Event-ID: ${JSON.stringify(mine.map((x) => [x.method, x.status]))}`);
    assert.equal(resume.requestHeaders['mcp-session-id'], s.transport.sessionId);
    assert.equal(resume.status, 200);
    assert.equal(mediaType(resume.contentType), 'text/event-stream');
  });

  it('echo with invalid arguments is a tool error naming `text`', T, async () => {
    const r = await s.client.callTool({ name: 'echo', arguments: { text: 5 } });
    assert.equal(r.isError, true);
    assert.match(onlyText(r), /\btext\b/);
  });

  it('an unknown tool is a JSON-RPC error -32602 (McpError)', T, async () => {
    await assert.rejects(s.client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
      assert.ok(e instanceof McpError, `McpError, got ${e}`);
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.match(e.message, /no_such_tool/);
      return true;
    });
  });
});

describe('TS SDK client -> oxmcp over Streamable HTTP: cancellation', () => {
  it('aborting slow rejects promptly and the server handler observes the cancel', T, async () => {
    const tag = 1000 + Math.floor(Math.random() * 9000);
    const wireBefore = s.wire.length;
    const httpBefore = s.http.length;
    const controller = new AbortController();
    const started = performance.now();
    const call = s.client.callTool({ name: 'slow', arguments: { tag, ms: 10_000 } }, undefined, {
      signal: controller.signal,
      timeout: 60_000,
    });
    setTimeout(() => controller.abort('interop test cancels'), 200);
    await assert.rejects(call);
    assert.ok(performance.now() - started < 2_000, 'the call rejected promptly');

    // The client POSTed notifications/cancelled for the request id; the server accepted it.
    const req = s.wire.slice(wireBefore).find((m) => m.dir === 'out' && m.msg.method === 'tools/call');
    assert.equal(req.msg.params.arguments.tag, tag);
    const cancelPost = await waitFor(
      () => s.http.slice(httpBefore).find((x) => x.body?.method === 'notifications/cancelled' && x.status),
      2_000,
      'the notifications/cancelled POST',
    );
    assert.equal(cancelPost.body.params.requestId, req.msg.id);
    assert.equal(cancelPost.status, 202);

    // The handler saw its cancellation token fire: it logs this line (on the request's stream
    // or the standalone GET stream).
    const line = `slow tag=${tag} cancelled`;
    const log = await waitFor(() => s.logs.find((l) => l.data === line), 3_000, `log "${line}"`);
    assert.equal(log.logger, 'slow');
    assert.ok(performance.now() - started < 5_000, 'the cancel reached the handler long before ms=10000');

    // A cancelled request gets no response, and the session stays healthy.
    await sleep(300);
    const response = s.wire.find((m) => m.dir === 'in' && m.msg.id === req.msg.id && !m.msg.method);
    assert.equal(response, undefined, `no response to a cancelled request, got ${JSON.stringify(response?.msg)}`);
    const r = await s.client.callTool({ name: 'echo', arguments: { text: 'still alive' } });
    assert.equal(onlyText(r), 'still alive');
  });
});

describe('TS SDK client -> oxmcp over Streamable HTTP: resources', () => {
  it('lists resources and templates', T, async () => {
    const { resources } = await s.client.listResources();
    const byUri = Object.fromEntries(resources.map((r) => [r.uri, r]));
    assert.equal(byUri['test://static-text']?.mimeType, 'text/plain');
    assert.equal(byUri['test://static-binary']?.mimeType, 'image/png');
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'test://template/{id}/data'));
  });

  it('reads a text resource', T, async () => {
    const r = await s.client.readResource({ uri: 'test://static-text' });
    assert.deepEqual(r.contents, [
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
  });

  it('reads a binary (blob) resource', T, async () => {
    const r = await s.client.readResource({ uri: 'test://static-binary' });
    assert.equal(r.contents.length, 1);
    assert.equal(r.contents[0].mimeType, 'image/png');
    assert.deepEqual(b64(r.contents[0].blob).subarray(0, 8), PNG_SIGNATURE);
  });

  it('reads a template instance and subscribes/unsubscribes', T, async () => {
    const r = await s.client.readResource({ uri: 'test://template/42/data' });
    assert.equal(r.contents[0].uri, 'test://template/42/data');
    assert.equal(JSON.parse(r.contents[0].text).id, '42');
    assert.deepEqual(await s.client.subscribeResource({ uri: 'test://watched-resource' }), {});
    assert.deepEqual(await s.client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
  });

  it('an unknown resource is a JSON-RPC error -32002', T, async () => {
    await assert.rejects(s.client.readResource({ uri: 'test://does-not-exist' }), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32002);
      assert.match(e.message, /test:\/\/does-not-exist/);
      return true;
    });
  });
});

describe('TS SDK client -> oxmcp over Streamable HTTP: prompts and completion', () => {
  it('lists every prompt', T, async () => {
    const { prompts } = await s.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [...EXPECTED_PROMPTS].sort());
  });

  it('gets test_simple_prompt and test_prompt_with_arguments', T, async () => {
    const simple = await s.client.getPrompt({ name: 'test_simple_prompt' });
    assert.deepEqual(simple.messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    const args = await s.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'α', arg2: 'β' } });
    assert.deepEqual(args.messages, [
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='α', arg2='β'" } },
    ]);
  });

  it('gets test_prompt_with_embedded_resource and test_prompt_with_image', T, async () => {
    const res = await s.client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://static-text' },
    });
    assert.equal(res.messages[0].content.type, 'resource');
    assert.equal(res.messages[0].content.resource.uri, 'test://static-text');
    const img = await s.client.getPrompt({ name: 'test_prompt_with_image' });
    const image = img.messages.find((m) => m.content.type === 'image');
    assert.deepEqual(b64(image.content.data).subarray(0, 8), PNG_SIGNATURE);
  });

  it('a prompt missing a required argument is a JSON-RPC error -32602', T, async () => {
    await assert.rejects(s.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /arg2/);
      return true;
    });
  });

  it('complete() filters prompt argument values by prefix', T, async () => {
    const ref = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
    const some = await s.client.complete({ ref, argument: { name: 'arg1', value: 'al' } });
    assert.ok(some.completion.values.length > 0, 'some values for "al"');
    assert.ok(some.completion.values.every((v) => v.startsWith('al')), `${some.completion.values}`);
  });

  it('every HTTP exchange of this session was answered as Streamable HTTP requires', T, async () => {
    assert.deepEqual(s.errors.map(String), [], 'the SDK reported no transport or protocol errors');
    // Each POST answered (a GET stream stays open: its status came with its headers).
    await Promise.all(s.http.filter((e) => e.method === 'POST').map((e) => e.settled));
    assertGetAnswered(s.http);
    for (const x of s.http.filter((e) => e.method === 'POST')) {
      const isRequest = x.body?.method !== undefined && x.body?.id !== undefined;
      if (isRequest) {
        assert.equal(x.status, 200, `${x.body.method} answered ${x.status}`);
        assert.equal(mediaType(x.contentType), 'text/event-stream', `${x.body.method}: ${x.contentType}`);
      } else {
        assert.equal(x.status, 202, `${JSON.stringify(x.body).slice(0, 80)} answered ${x.status}`);
      }
    }
  });
});

describe('TS SDK client -> oxmcp over Streamable HTTP: session termination', () => {
  it('DELETE ends the session; the old session id is then refused with 404', T, async () => {
    const c = await connect(server.url);
    try {
      const sessionId = c.transport.sessionId;
      assert.ok(sessionId);
      assert.notEqual(sessionId, s.transport.sessionId, 'each client gets its own session');
      assert.equal(onlyText(await c.client.callTool({ name: 'echo', arguments: { text: 'before' } })), 'before');
      await c.transport.terminateSession();
      const del = c.http.find((x) => x.method === 'DELETE');
      assert.equal(del.requestHeaders['mcp-session-id'], sessionId);
      assert.ok(del.status >= 200 && del.status < 300, `DELETE answered ${del.status}`);
      const res = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      await res.body?.cancel();
      assert.equal(res.status, 404, 'a terminated session is 404 Not Found');
      // The main session is unaffected.
      assert.deepEqual(await s.client.ping(), {});
    } finally {
      await c.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Legacy HTTP+SSE (/sse + /message) with the SDK's SSEClientTransport.
// ---------------------------------------------------------------------------------------------

describe('TS SDK SSEClientTransport -> oxmcp legacy /sse endpoint', () => {
  let c;
  before(async () => {
    c = await connect(server.sseUrl, { kind: 'sse' });
  });
  after(async () => {
    await c?.close();
  });

  it('initializes over GET /sse + POST to the announced endpoint', T, () => {
    assert.deepEqual(c.client.getServerVersion(), { name: 'oxmcp-everything', version: '0.1.0' });
    assert.ok(c.client.getServerCapabilities().tools);
    const get = c.http.find((x) => x.method === 'GET');
    assert.equal(new URL(get.url).pathname, '/sse');
    assert.equal(get.status, 200);
    assert.equal(mediaType(get.contentType), 'text/event-stream');
    const init = postOf(c.http, 'initialize');
    const endpoint = new URL(init.url);
    assert.equal(endpoint.origin, new URL(server.sseUrl).origin);
    assert.equal(endpoint.pathname, '/message');
    assert.ok(init.status >= 200 && init.status < 300, `POST /message answered ${init.status}`);
    const result = c.wire.find((m) => m.dir === 'in' && m.msg.id === init.body.id);
    assert.equal(result.msg.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  it('lists tools', T, async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `tool ${name} is listed`);
  });

  it('calls echo', T, async () => {
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'over legacy SSE ✓' } });
    assert.equal(onlyText(r), 'over legacy SSE ✓');
  });

  it('progress notifications arrive on the SSE stream before the result', T, async () => {
    const seen = [];
    const r = await c.client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.match(onlyText(r), /^Progress test completed/);
    assert.deepEqual(seen, [0, 50, 100]);
  });
});

// ---------------------------------------------------------------------------------------------
// --json-response and --stateless servers.
// ---------------------------------------------------------------------------------------------

describe('TS SDK client -> oxmcp --http --json-response', () => {
  let jsonServer;
  let c;
  before(async () => {
    jsonServer = await startOxmcpHttp(['--json-response']);
    c = await connect(jsonServer.url);
  });
  after(async () => {
    await c?.close();
    await jsonServer?.stop();
  });

  it('lists tools and calls echo; requests are answered with application/json bodies', T, async () => {
    const { tools } = await c.client.listTools();
    for (const name of EXPECTED_TOOLS) assert.ok(tools.some((t) => t.name === name), `tool ${name} is listed`);
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'as JSON ✓' } });
    assert.equal(onlyText(r), 'as JSON ✓');
    assert.deepEqual(c.client.getServerVersion(), { name: 'oxmcp-everything', version: '0.1.0' });
    assert.ok(c.transport.sessionId, 'a session id');
    for (const method of ['initialize', 'tools/list', 'tools/call']) {
      const post = postOf(c.http, method);
      assert.equal(post.status, 200, `${method} answered ${post.status}`);
      assert.equal(mediaType(post.contentType), 'application/json', `${method}: ${post.contentType}`);
    }
    assertGetAnswered(c.http);
  });
});

describe('TS SDK client -> oxmcp --http --stateless', () => {
  let statelessServer;
  let c;
  before(async () => {
    statelessServer = await startOxmcpHttp(['--stateless']);
    c = await connect(statelessServer.url);
  });
  after(async () => {
    await c?.close();
    await statelessServer?.stop();
  });

  it('calls echo without a session', T, async () => {
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'stateless ✓' } });
    assert.equal(onlyText(r), 'stateless ✓');
    assert.deepEqual(c.client.getServerVersion(), { name: 'oxmcp-everything', version: '0.1.0' });
    assert.equal(c.transport.sessionId, undefined, 'no mcp-session-id is issued');
    assert.ok(c.http.every((x) => !x.sessionId), 'no response carries mcp-session-id');
    const post = postOf(c.http, 'tools/call');
    assert.equal(post.status, 200);
    assertGetAnswered(c.http);
  });
});
