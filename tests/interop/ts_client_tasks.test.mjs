// The official TypeScript SDK client (@modelcontextprotocol/sdk 1.32.2) against
// `oxmcp everything-server --http` in the 2025-11-25 task augmentation (protocol
// 2025-11-25, capabilities.tasks), through the SDK's experimental tasks API as a user
// would call it: client.experimental.tasks.callToolStream (taskCreated / taskStatus /
// result | error messages; it sends tools/call with params.task, polls tasks/get, and calls
// tasks/result when the task completes or turns input_required), getTask, getTaskResult,
// listTasks, cancelTask; elicitation answered by the client's ElicitRequestSchema handler.
//
// The fixtures (cli/src/task_fixtures.rs): slow_compute {seconds, label} (optional),
// failing_job (required; ends with an isError result), protocol_error_job (optional; ends
// with JSON-RPC error -32603), confirm_delete {filename} (optional; elicits {confirm:
// boolean}), greet (no task support).
//
// Every JSON-RPC message is recorded (recordWire), and every HTTP exchange with the
// messages its response carried (tapFetch), so a test can tell on which stream a message
// came.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { recordWire, startOxmcpHttp } from './helpers.mjs';

const T = { timeout: 30_000 };
const RELATED = 'io.modelcontextprotocol/related-task';
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// --- Recording --------------------------------------------------------------------------

/**
 * A fetch that records each HTTP exchange into `exchanges`: { method, body (the parsed
 * JSON-RPC message POSTed), status, contentType, messages (the JSON-RPC messages of the
 * response, JSON or SSE), done (resolves once the response body ended) }.
 */
function tapFetch(exchanges) {
  return async (url, init = {}) => {
    let body;
    try {
      body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    } catch {
      body = init.body;
    }
    const entry = { method: init.method ?? 'GET', body, messages: [], done: Promise.resolve() };
    exchanges.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.contentType = response.headers.get('content-type') ?? '';
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    const [mine, theirs] = response.body.tee();
    entry.done = readMessages(mine, entry.contentType, entry.messages);
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

async function readMessages(stream, contentType, out) {
  const sse = contentType.includes('text/event-stream');
  const decoder = new TextDecoder();
  let buffer = '';
  const take = (text) => {
    try {
      out.push(JSON.parse(text));
    } catch {
      // not JSON: not a JSON-RPC message
    }
  };
  const drainEvents = () => {
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''));
      if (data.length) take(data.join('\n'));
    }
  };
  try {
    for await (const chunk of stream) {
      buffer += decoder.decode(chunk, { stream: true });
      if (sse) drainEvents();
    }
  } catch {
    // aborted (the client closed): what arrived is recorded
  }
  if (!sse && buffer.trim()) {
    const parsed = (() => {
      try {
        return JSON.parse(buffer);
      } catch {
        return undefined;
      }
    })();
    for (const m of [parsed].flat()) if (m) out.push(m);
  }
}

/**
 * A TS SDK client over Streamable HTTP that declares elicitation and answers it with
 * `s.answer(request)`. Returns { client, tasks, wire, http, elicits, answer, close }.
 */
async function connect(url) {
  const s = { wire: [], http: [], elicits: [], errors: [], answer: async () => ({ action: 'decline' }) };
  s.transport = new StreamableHTTPClientTransport(new URL(url), { fetch: tapFetch(s.http) });
  s.client = new Client({ name: 'oxmcp-interop-ts-tasks', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  s.client.onerror = (e) => s.errors.push(e);
  s.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    s.elicits.push(request);
    return s.answer(request);
  });
  recordWire(s.transport, s.wire);
  await s.client.connect(s.transport);
  s.tasks = s.client.experimental.tasks;
  s.close = () => s.client.close().catch(() => {});
  return s;
}

/** Every outgoing request of `method` on the wire, with the response it got ({ req, res }). */
function exchangesOf(wire, method) {
  return wire
    .filter((w) => w.dir === 'out' && w.msg.method === method && w.msg.id !== undefined)
    .map((w) => ({
      req: w.msg,
      res: wire.find((r) => r.dir === 'in' && r.msg.id === w.msg.id && r.msg.method === undefined)?.msg,
    }));
}

// --- Assertions -------------------------------------------------------------------------

/** Consumes a callToolStream; fails with what it yielded so far if it does not end in `ms`. */
async function collect(stream, ms = 20_000) {
  const messages = [];
  const it = stream[Symbol.asyncIterator]();
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    for (;;) {
      const next = await Promise.race([it.next(), timeout]);
      if (next === 'timeout') {
        it.return();
        assert.fail(`the stream did not end within ${ms} ms; it yielded: ${summary(messages)}`);
      }
      if (next.done) return messages;
      messages.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** 'resolved', 'rejected' or 'pending' (still unsettled after `ms`). */
async function settlesWithin(promise, ms) {
  let timer;
  const pending = new Promise((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const outcome = promise.then(
    () => 'resolved',
    () => 'rejected',
  );
  try {
    return await Promise.race([outcome, pending]);
  } finally {
    clearTimeout(timer);
  }
}

const summary = (messages) =>
  messages
    .map((m) => m.type + (m.task ? `:${m.task.status}` : '') + (m.error ? `:${m.error.code}:${m.error.message}` : ''))
    .join(', ') || '(nothing)';

/** A Task as 2025-11-25 defines it. */
function assertTask(task, { status, taskId } = {}) {
  assert.equal(typeof task.taskId, 'string', JSON.stringify(task));
  assert.ok(task.taskId.length > 0);
  if (taskId !== undefined) assert.equal(task.taskId, taskId);
  if (status !== undefined) assert.equal(task.status, status, JSON.stringify(task));
  for (const field of ['createdAt', 'lastUpdatedAt']) {
    assert.match(task[field] ?? '', ISO_8601, `${field} is ISO 8601: ${JSON.stringify(task)}`);
  }
  assert.ok(task.ttl === null || (Number.isInteger(task.ttl) && task.ttl > 0), `ttl: ${JSON.stringify(task)}`);
  if (task.pollInterval !== undefined) assert.ok(Number.isInteger(task.pollInterval) && task.pollInterval > 0);
}

/** A stream of one task: taskCreated, taskStatus..., then the end; returns its parts. */
function taskStream(messages) {
  const [created, ...rest] = messages;
  assert.equal(created?.type, 'taskCreated', `stream: ${summary(messages)}`);
  assertTask(created.task, { status: 'working' });
  const statuses = rest.filter((m) => m.type === 'taskStatus');
  const end = rest.at(-1);
  assert.ok(end && ['result', 'error'].includes(end.type), `stream: ${summary(messages)}`);
  assert.deepEqual(
    rest.slice(0, -1).map((m) => m.type),
    statuses.map(() => 'taskStatus'),
    `stream: ${summary(messages)}`,
  );
  for (const m of statuses) assertTask(m.task, { taskId: created.task.taskId });
  return { taskId: created.task.taskId, created: created.task, statuses: statuses.map((m) => m.task.status), end };
}

async function rejectsWithCode(promise, code, what) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof McpError, `${what}: ${e}`);
    assert.equal(e.code, code, `${what}: ${e.message}`);
    return true;
  });
}

const text = (result) => result.content.map((c) => c.text).join('\n');

// --- Tests ------------------------------------------------------------------------------

let server;
let a;
/** Every task session A created, for tasks/list. */
const mine = [];

before(async () => {
  server = await startOxmcpHttp();
  a = await connect(server.url);
  // The SDK learns each tool's execution.taskSupport from tools/list: callToolStream then
  // makes a task of every tool that supports one.
  await a.client.listTools();
});

after(async () => {
  await a?.close();
  await server?.stop();
});

describe('TS SDK client -> oxmcp (HTTP, 2025-11-25): capabilities and tools', () => {
  it('initialize is answered at 2025-11-25 with capabilities.tasks {list, cancel, requests.tools.call}', T, () => {
    const [init] = exchangesOf(a.wire, 'initialize');
    assert.equal(init.req.params.protocolVersion, '2025-11-25');
    assert.equal(init.res.result.protocolVersion, '2025-11-25');
    const tasks = init.res.result.capabilities.tasks;
    assert.ok(tasks, `capabilities: ${JSON.stringify(init.res.result.capabilities)}`);
    assert.deepEqual(tasks.list, {});
    assert.deepEqual(tasks.cancel, {});
    assert.deepEqual(tasks.requests?.tools?.call, {});
    assert.deepEqual(a.client.getServerCapabilities().tasks, tasks);
  });

  it('tools/list gives each fixture its execution.taskSupport', T, async () => {
    const { tools } = await a.client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.equal(support.slow_compute, 'optional');
    assert.equal(support.confirm_delete, 'optional');
    assert.equal(support.protocol_error_job, 'optional');
    assert.equal(support.failing_job, 'required');
    assert.ok(support.greet === undefined || support.greet === 'forbidden', `greet: ${support.greet}`);
  });
});

describe('TS SDK client -> oxmcp (HTTP, 2025-11-25): task lifecycle', () => {
  let completedId;

  it('callToolStream runs slow_compute as a task: taskCreated, taskStatus working..., completed, result', T, async () => {
    const messages = await collect(a.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 1.5, label: 'alpha' } }));
    const { taskId, statuses, end } = taskStream(messages);
    mine.push(taskId);
    completedId = taskId;
    assert.equal(statuses.at(-1), 'completed', `stream: ${summary(messages)}`);
    assert.ok(statuses.slice(0, -1).every((s) => s === 'working'), `statuses: ${statuses}`);
    assert.ok(statuses.length >= 2, `1.5 s at the suggested poll interval gives several polls: ${statuses}`);
    const done = messages.filter((m) => m.type === 'taskStatus').at(-1).task;
    const took = Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt);
    assert.ok(took >= 1_400 && took < 10_000, `lastUpdatedAt is when it completed: ${JSON.stringify(done)}`);
    assert.equal(end.type, 'result', `stream: ${summary(messages)}`);
    assert.deepEqual(end.result.content, [{ type: 'text', text: 'alpha: computed in 1.5 s' }]);
    assert.notEqual(end.result.isError, true);
    assert.deepEqual(end.result._meta?.[RELATED], { taskId }, 'tasks/result carries _meta related-task');

    // On the wire: tools/call with params.task answered by a CreateTaskResult (no content).
    const call = exchangesOf(a.wire, 'tools/call').find((x) => x.res?.result?.task?.taskId === taskId);
    assert.ok(call, 'the tools/call that created the task');
    assert.deepEqual(call.req.params.task, {});
    assert.equal(call.res.result.content, undefined, `CreateTaskResult only: ${JSON.stringify(call.res.result)}`);
    assertTask(call.res.result.task, { status: 'working', taskId });
    const result = exchangesOf(a.wire, 'tasks/result').find((x) => x.req.params.taskId === taskId);
    assert.deepEqual(result.res.result._meta?.[RELATED], { taskId });
  });

  it('tasks/get and tasks/list answers carry no related-task _meta (SHOULD NOT)', T, async () => {
    await a.tasks.listTasks();
    for (const method of ['tasks/get', 'tasks/list']) {
      const answers = exchangesOf(a.wire, method).filter((x) => x.res?.result);
      assert.ok(answers.length > 0, method);
      for (const x of answers) assert.equal(x.res.result._meta?.[RELATED], undefined, `${method}: ${JSON.stringify(x.res.result)}`);
    }
  });

  it('a requested ttl (params.task.ttl) is answered with the ttl kept, the same in tasks/get', T, async () => {
    const messages = await collect(
      a.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0.2, label: 'beta' } }, undefined, { task: { ttl: 60_000 } }),
    );
    const { taskId, created, end } = taskStream(messages);
    mine.push(taskId);
    const call = exchangesOf(a.wire, 'tools/call').find((x) => x.res?.result?.task?.taskId === taskId);
    assert.deepEqual(call.req.params.task, { ttl: 60_000 });
    assert.equal(end.type, 'result', `stream: ${summary(messages)}`);
    assert.equal(text(end.result), 'beta: computed in 0.2 s');
    const task = await a.tasks.getTask(taskId);
    assertTask(task, { taskId, status: 'completed' });
    assert.equal(task.ttl, created.ttl);
    assert.equal(task.createdAt, created.createdAt);
    assert.ok(Date.parse(task.lastUpdatedAt) >= Date.parse(created.createdAt));
  });

  it('slow_compute called without a task (callTool) is answered inline', T, async () => {
    const r = await a.client.callTool({ name: 'slow_compute', arguments: { seconds: 0.1, label: 'gamma' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'gamma: computed in 0.1 s' }]);
    const call = exchangesOf(a.wire, 'tools/call').find((x) => x.req.params.arguments?.label === 'gamma');
    assert.equal(call.req.params.task, undefined);
    assert.equal(call.res.result.task, undefined);
  });

  it('failing_job (taskSupport required): the task ends failed, tasks/result gives the isError result', T, async () => {
    const messages = await collect(a.tasks.callToolStream({ name: 'failing_job', arguments: {} }));
    const { taskId, statuses, end } = taskStream(messages);
    mine.push(taskId);
    // 2025-11-25: "For tool calls specifically, [failed] includes cases where the tool call
    // result has isError set to true." The SDK then ends the stream with an error.
    assert.equal(statuses.at(-1), 'failed', `stream: ${summary(messages)}`);
    assert.equal(end.type, 'error');
    assert.match(end.error.message, new RegExp(`Task ${taskId} failed`));
    // tasks/result: exactly what tools/call would have returned.
    const result = await a.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.equal(text(result), 'the job failed');
    assert.deepEqual(result._meta?.[RELATED], { taskId });
  });

  it('a failed task\'s tasks/get carries a statusMessage (SHOULD: "diagnostic information about the failure")', T, async () => {
    for (const name of ['failing_job', 'protocol_error_job']) {
      let taskId;
      for await (const m of a.tasks.callToolStream({ name, arguments: {} })) {
        taskId = m.task.taskId;
        break;
      }
      mine.push(taskId);
      await a.tasks.getTaskResult(taskId, CallToolResultSchema).catch(() => {}); // waits for the end
      const task = await a.tasks.getTask(taskId);
      assertTask(task, { taskId, status: 'failed' });
      assert.equal(typeof task.statusMessage, 'string', `${name}: ${JSON.stringify(task)}`);
      assert.ok(task.statusMessage.length > 0);
    }
  });

  it('protocol_error_job as a task: failed, and tasks/result returns the JSON-RPC error -32603', T, async () => {
    const messages = await collect(a.tasks.callToolStream({ name: 'protocol_error_job', arguments: {} }));
    const { taskId, statuses, end } = taskStream(messages);
    mine.push(taskId);
    assert.equal(statuses.at(-1), 'failed', `stream: ${summary(messages)}`);
    assert.equal(end.type, 'error');
    await assert.rejects(a.tasks.getTaskResult(taskId, CallToolResultSchema), (e) => {
      assert.ok(e instanceof McpError, String(e));
      assert.equal(e.code, -32603);
      assert.match(e.message, /the job crashed/);
      return true;
    });
    const x = exchangesOf(a.wire, 'tasks/result').find((y) => y.req.params.taskId === taskId);
    assert.equal(x.res.error?.code, -32603, JSON.stringify(x.res));
  });

  it('confirm_delete: input_required, elicitation/create on the tasks/result stream with related-task, the answer resumes it', T, async () => {
    const during = [];
    a.answer = async (request) => {
      // While the question is open the task is input_required.
      during.push(await a.tasks.getTask(request.params._meta?.[RELATED]?.taskId ?? 'missing-related-task'));
      return { action: 'accept', content: { confirm: true } };
    };
    const before = a.elicits.length;
    const messages = await collect(a.tasks.callToolStream({ name: 'confirm_delete', arguments: { filename: 'report.txt' } }));
    const { taskId, statuses, end } = taskStream(messages);
    mine.push(taskId);
    assert.equal(statuses.at(-1), 'input_required', `the SDK calls tasks/result on input_required: ${summary(messages)}`);
    assert.equal(end.type, 'result', `stream: ${summary(messages)}`);
    assert.equal(text(end.result), 'deleted report.txt');
    assert.deepEqual(end.result._meta?.[RELATED], { taskId });

    const asked = a.elicits.slice(before);
    assert.equal(asked.length, 1, 'one elicitation');
    const [elicit] = asked;
    assert.equal(elicit.params.message, 'Delete report.txt?');
    assert.equal(elicit.params.requestedSchema.properties.confirm.type, 'boolean');
    assert.deepEqual(elicit.params._meta?.[RELATED], { taskId }, 'elicitation/create carries _meta related-task');
    assert.equal(during.length, 1);
    assertTask(during[0], { taskId, status: 'input_required' });

    // The elicitation came on the HTTP response of the tasks/result POST, before its result.
    const post = a.http.find((x) => x.method === 'POST' && x.body?.method === 'tasks/result' && x.body.params.taskId === taskId);
    assert.ok(post, 'a tasks/result POST');
    await post.done;
    assert.match(post.contentType, /text\/event-stream/);
    const onStream = post.messages.map((m) => m.method ?? (m.id === post.body.id ? 'response' : `other ${JSON.stringify(m)}`));
    assert.deepEqual(onStream.filter((m) => m !== 'notifications/progress' && m !== 'notifications/message'), ['elicitation/create', 'response']);
    // The answer was POSTed back and accepted.
    const elicitId = post.messages.find((m) => m.method === 'elicitation/create').id;
    const answer = a.http.find((x) => x.method === 'POST' && x.body?.id === elicitId && x.body.result);
    assert.deepEqual(answer.body.result, { action: 'accept', content: { confirm: true } });
    assert.equal(answer.status, 202);

    assertTask(await a.tasks.getTask(taskId), { taskId, status: 'completed' });
  });

  it('confirm_delete declined: the task completes with the file kept', T, async () => {
    a.answer = async () => ({ action: 'decline' });
    const messages = await collect(a.tasks.callToolStream({ name: 'confirm_delete', arguments: { filename: 'notes.txt' } }));
    const { taskId, end } = taskStream(messages);
    mine.push(taskId);
    assert.equal(end.type, 'result', `stream: ${summary(messages)}`);
    assert.equal(text(end.result), 'kept notes.txt');
  });

  it('tasks/cancel on a running task: the Task comes back cancelled, the stream ends cancelled', T, async () => {
    const stream = a.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 30, label: 'long' } });
    const it = stream[Symbol.asyncIterator]();
    const first = await it.next();
    assert.equal(first.value?.type, 'taskCreated', JSON.stringify(first.value));
    const { taskId } = first.value.task;
    mine.push(taskId);
    const cancelled = await a.tasks.cancelTask(taskId);
    assertTask(cancelled, { taskId, status: 'cancelled' });
    const rest = await collect({ [Symbol.asyncIterator]: () => it }, 10_000);
    assert.equal(rest.at(-1)?.type, 'error', `rest of the stream: ${summary(rest)}`);
    assert.match(rest.at(-1).error.message, /was cancelled/);
    assert.ok(rest.slice(0, -1).every((m) => m.type === 'taskStatus' && m.task.status === 'cancelled'), summary(rest));
    assertTask(await a.tasks.getTask(taskId), { taskId, status: 'cancelled' });
    const x = exchangesOf(a.wire, 'tasks/cancel').find((y) => y.req.params.taskId === taskId);
    assert.equal(x.res.result._meta?.[RELATED], undefined, `tasks/cancel answer (SHOULD NOT): ${JSON.stringify(x.res.result)}`);

    // Terminal now: a second cancel is refused, and tasks/result does not block.
    await rejectsWithCode(a.tasks.cancelTask(taskId), -32602, 'cancelling a cancelled task');
    const settled = await settlesWithin(a.tasks.getTaskResult(taskId, CallToolResultSchema), 5_000);
    assert.notEqual(settled, 'pending', 'tasks/result of a cancelled (terminal) task still blocks after 5 s');
  });

  it('tasks/cancel on a completed task is -32602 and leaves it completed', T, async () => {
    assert.ok(completedId, 'the first test completed a task');
    await rejectsWithCode(a.tasks.cancelTask(completedId), -32602, 'cancelling a completed task');
    assertTask(await a.tasks.getTask(completedId), { taskId: completedId, status: 'completed' });
  });

  it('tasks/list lists every task of this session (over 100), page by page (nextCursor)', T, async () => {
    // Over a hundred (oxmcp's default page size), ten at a time, so that listing them
    // takes more than one page.
    for (let batch = 0; batch < 11; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const stream = a.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0, label: `bulk${batch}.${i}` } });
          for await (const m of stream) {
            assert.equal(m.type, 'taskCreated', summary([m]));
            return m.task.taskId; // the handle is enough
          }
        }),
      );
      mine.push(...ids);
    }
    const listed = [];
    let cursor;
    let pages = 0;
    do {
      const page = await a.tasks.listTasks(cursor);
      pages++;
      assert.ok(Array.isArray(page.tasks));
      for (const t of page.tasks) assertTask(t);
      listed.push(...page.tasks);
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages < 100);
    assert.equal(cursor, undefined, 'pagination ends');
    assert.ok(pages >= 2, `${listed.length} tasks came in ${pages} page(s)`);
    const ids = listed.map((t) => t.taskId);
    assert.equal(new Set(ids).size, ids.length, `no task listed twice (${pages} pages)`);
    for (const id of mine) assert.ok(ids.includes(id), `task ${id} listed (${pages} pages, ${ids.length} tasks)`);
    assert.equal(listed.find((t) => t.taskId === completedId).status, 'completed');
  });

  it('tasks/list with an invalid cursor is -32602', T, async () => {
    await rejectsWithCode(a.tasks.listTasks('not-a-cursor-oxmcp-issued'), -32602, 'tasks/list bad cursor');
  });

  it('tasks/get, tasks/result and tasks/cancel of an unknown task id are -32602', T, async () => {
    await rejectsWithCode(a.tasks.getTask('no-such-task'), -32602, 'tasks/get');
    await rejectsWithCode(a.tasks.getTaskResult('no-such-task', CallToolResultSchema), -32602, 'tasks/result');
    await rejectsWithCode(a.tasks.cancelTask('no-such-task'), -32602, 'tasks/cancel');
  });
});

describe('TS SDK client -> oxmcp (HTTP, 2025-11-25): task support negotiation', () => {
  it('a taskSupport "required" tool called without params.task is -32601', T, async () => {
    // The SDK itself refuses callTool for a tool it knows requires a task...
    await rejectsWithCode(a.client.callTool({ name: 'failing_job', arguments: {} }), -32600, 'SDK guard');
    // ...so a request built by hand shows the server's answer.
    await rejectsWithCode(
      a.client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CallToolResultSchema),
      -32601,
      'tools/call failing_job without a task',
    );
  });

  it('greet (no task support) with params.task is -32601; without, it answers inline', T, async () => {
    const messages = await collect(a.tasks.callToolStream({ name: 'greet', arguments: { name: 'Ada' } }, undefined, { task: {} }));
    assert.equal(messages.length, 1, summary(messages));
    assert.equal(messages[0].type, 'error');
    assert.equal(messages[0].error.code, -32601, messages[0].error.message);
    // callToolStream makes no task of a tool without task support.
    const plain = await collect(a.tasks.callToolStream({ name: 'greet', arguments: { name: 'Ada' } }));
    assert.deepEqual(plain.map((m) => m.type), ['result']);
    assert.equal(text(plain[0].result), 'Hello, Ada!');
  });
});

describe('TS SDK client -> oxmcp (HTTP, 2025-11-25): tasks belong to their session', () => {
  let b;
  before(async () => {
    b = await connect(server.url);
    await b.client.listTools();
  });
  after(async () => {
    await b?.close();
  });

  it('a second session lists no tasks and cannot get, read or cancel the first session\'s', T, async () => {
    assert.notEqual(b.transport.sessionId, a.transport.sessionId);
    assert.ok(mine.length > 0);
    const listed = await b.tasks.listTasks();
    assert.deepEqual(listed.tasks, [], `session B sees: ${JSON.stringify(listed.tasks)}`);
    assert.equal(listed.nextCursor, undefined);
    await rejectsWithCode(b.tasks.getTask(mine[0]), -32602, 'tasks/get of A\'s task from B');
    await rejectsWithCode(b.tasks.getTaskResult(mine[0], CallToolResultSchema), -32602, 'tasks/result of A\'s task from B');

    // A running task of A's cannot be cancelled from B, and keeps running.
    let running;
    for await (const m of a.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 30, label: 'a-only' } })) {
      running = m.task.taskId;
      break;
    }
    try {
      await rejectsWithCode(b.tasks.cancelTask(running), -32602, 'tasks/cancel of A\'s task from B');
      assertTask(await a.tasks.getTask(running), { taskId: running, status: 'working' });
    } finally {
      await a.tasks.cancelTask(running).catch(() => {});
    }
  });

  it('each session lists its own tasks only', T, async () => {
    const messages = await collect(b.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0.1, label: 'b' } }));
    const { taskId, end } = taskStream(messages);
    assert.equal(text(end.result), 'b: computed in 0.1 s');
    const listed = await b.tasks.listTasks();
    assert.deepEqual(listed.tasks.map((t) => t.taskId), [taskId]);
    await rejectsWithCode(a.tasks.getTask(taskId), -32602, 'tasks/get of B\'s task from A');
    const ids = [];
    let cursor;
    do {
      const page = await a.tasks.listTasks(cursor);
      ids.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.ok(!ids.includes(taskId), 'A does not list B\'s task');
  });
});
