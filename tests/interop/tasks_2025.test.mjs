// The 2025-11-25 specification's tasks (tools/call with params.task, tasks/get,
// tasks/result, tasks/list, tasks/cancel), against the official implementations:
//   (a) the oxmcp CLI as the client of the official TypeScript everything server, whose
//       `simulate-research-query` runs only as a task (taskSupport "required") and, when
//       the query is ambiguous, asks the user through tasks/result;
//   (b) the official TypeScript SDK's task client (client.experimental.tasks) against
//       `oxmcp everything-server --http`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { HERE, oxmcpBin, startOxmcpHttp } from './helpers.mjs';

const T = { timeout: 60_000 };
const EVERYTHING = ['node', path.join(HERE, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
const RELATED = 'io.modelcontextprotocol/related-task';

/** Runs the oxmcp CLI with `input` on its stdin; resolves { code, stdout, stderr }. */
function oxmcp(args, input = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(oxmcpBin(), args, { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('oxmcp CLI -> official everything server: a tool that runs only as a task', () => {
  it('runs simulate-research-query as a task and prints its report', T, async () => {
    const r = await oxmcp(['call', 'simulate-research-query', 'topic=rust', ...EVERYTHING]);
    assert.equal(r.code, 0, r.stderr);
    // The report only the finished task writes, after its four stages.
    assert.match(r.stdout, /# Research Report: rust\n/);
    assert.match(r.stdout, /Stage 4: Generating report ✓/);
    assert.match(r.stdout, /`working` → `completed`/);
  });

  it('answers the task question the server asks through tasks/result', T, async () => {
    const r = await oxmcp(['call', 'simulate-research-query', 'topic=rust', 'ambiguous=true', ...EVERYTHING], 'historical\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Which interpretation of the topic do you mean\?/); // the prompt
    // The user's answer reached the task, which went input_required -> working -> completed.
    assert.match(r.stdout, /# Research Report: rust \(historical\)/);
    assert.match(r.stdout, /`working` → `input_required` → `working` → `completed`/);
  });
});

describe('official TypeScript SDK task client -> oxmcp server (2025-11-25)', () => {
  let server;
  const clients = [];
  before(async () => {
    server = await startOxmcpHttp();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server?.stop();
  });

  async function connect(onElicit) {
    const client = new Client({ name: 'ts-tasks', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    clients.push(client);
    return client;
  }

  async function stream(client, name, args) {
    const seen = [];
    for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
      task: { ttl: 60_000 },
    })) {
      seen.push(message);
    }
    return seen;
  }

  it('declares the tasks capability and runs a tool as a task to its result', T, async () => {
    const client = await connect();
    assert.deepEqual(client.getServerCapabilities().tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const seen = await stream(client, 'slow_compute', { seconds: 1, label: 'ts' });
    const types = seen.map((m) => m.type);
    assert.equal(types[0], 'taskCreated', JSON.stringify(seen));
    assert.equal(seen[0].task.status, 'working');
    assert.equal(seen[0].task.ttl, 60_000);
    assert.ok(types.includes('taskStatus'));
    const last = seen.at(-1);
    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.equal(last.result.content[0].text, 'ts: computed in 1 s');
    assert.deepEqual(last.result._meta[RELATED], { taskId: seen[0].task.taskId });
  });

  it('delivers the task question over tasks/result and resumes the task with the answer', T, async () => {
    const asked = [];
    const client = await connect(async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    const seen = await stream(client, 'confirm_delete', { filename: 'ts.txt' });
    const last = seen.at(-1);
    assert.equal(last.type, 'result', JSON.stringify(seen));
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.deepEqual(asked[0]._meta[RELATED], { taskId: seen[0].task.taskId });
    assert.equal(last.result.content[0].text, 'deleted ts.txt');
    assert.ok(seen.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required'), JSON.stringify(seen));
  });

  it('lists, gets and cancels tasks; another session reaches none of them', T, async () => {
    const client = await connect();
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60, label: 'long' }, task: {} } },
      CreateTaskResultSchema,
    );
    const id = created.task.taskId;
    const listed = await client.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((t) => t.taskId === id && t.status === 'working'), JSON.stringify(listed));
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'working');

    const other = await connect();
    assert.deepEqual((await other.experimental.tasks.listTasks()).tasks, []);
    await assert.rejects(other.experimental.tasks.getTask(id), (e) => e instanceof McpError && e.code === -32602);

    const cancelled = await client.experimental.tasks.cancelTask(id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'cancelled');
    await assert.rejects(client.experimental.tasks.cancelTask(id), (e) => e instanceof McpError && e.code === -32602);
  });

  it('keeps taskSupport: a task-only tool called plainly, and a plain tool asked as a task, are -32601', T, async () => {
    const client = await connect();
    await assert.rejects(client.callTool({ name: 'failing_job', arguments: {} }), (e) => e instanceof McpError && e.code === -32601);
    const seen = await stream(client, 'greet', { name: 'x' });
    const error = seen.find((m) => m.type === 'error');
    assert.ok(error && error.error.code === -32601, JSON.stringify(seen));
  });
});
