// The oxmcp client (the `oxmcp call` CLI) against the official TypeScript "everything" server
// and its task-only tool `simulate-research-query` (execution.taskSupport "required"), in
// the 2025-11-25 task augmentation: the CLI must send tools/call with params.task, follow
// the task (tasks/get, tasks/result) and print the tool's final result, as it would for an
// ordinary tool.
//
// simulate-research-query (server-everything 2026.8.31, tools/simulate-research-query.js):
//   arguments { topic: string, ambiguous?: boolean (default false) };
//   the task goes through four 1 s stages (Gathering sources, Analyzing content,
//   Synthesizing findings, Generating report), then completes with one text block, a
//   markdown "# Research Report: <topic>" naming the stages and how the status went.
//   With ambiguous=true and a client that declared elicitation, the task turns
//   input_required at the third stage and sends elicitation/create (a form with one field,
//   `interpretation`, a oneOf of consts: for a topic containing "python": programming,
//   snake, comedy) with _meta related-task; the SDK queues it and delivers it only on a
//   tasks/result stream. The answer shows in the report: "<topic> (<interpretation>)", or
//   "User declined - ..." / "User cancelled - ..." for a decline / cancel.
// The CLI answers elicitation on the terminal (cli/src/elicit.rs): a line per field read
// from stdin, `!decline` declines, end of input cancels.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

import { HERE, oxmcpBin, ProcessRunner } from './helpers.mjs';

const T = { timeout: 60_000 };
// Each command runs its own server; two at a time keep both cores busy.
const GROUP = { concurrency: 2 };
const TOOL = 'simulate-research-query';
const TS_SERVER = ['node', path.join(HERE, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
const STAGES = ['Gathering sources', 'Analyzing content', 'Synthesizing findings', 'Generating report'];

const runner = new ProcessRunner();
const withInput = new Set();
after(() => {
  runner.killAll();
  for (const pid of withInput) killGroup(pid);
});

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs `oxmcp <args...> -- <everything server>` with `input` on its stdin (the terminal the
 * CLI asks the user on), in its own process group. Resolves { code, stdout, stderr, ms }.
 */
function oxmcpWithInput(args, input, { timeoutMs = 45_000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(oxmcpBin(), [...args, '--', ...TS_SERVER], { cwd: HERE, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    withInput.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {}); // the CLI may exit before reading it all
    child.stdin.end(input);
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`oxmcp ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      withInput.delete(child.pid);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      withInput.delete(child.pid);
      killGroup(child.pid);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `oxmcp <args...> -- <everything server>` with stdin closed (no answers). */
async function oxmcp(args) {
  const started = Date.now();
  const r = await runner.run(oxmcpBin(), [...args, '--', ...TS_SERVER], { timeoutMs: 45_000 });
  return { ...r, ms: Date.now() - started };
}

const describeRun = (r) => `exit ${r.code} after ${r.ms} ms\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** The report's markdown from `call --json` output: its only content block. */
function reportOf(r) {
  assert.equal(r.code, 0, describeRun(r));
  let result;
  try {
    result = JSON.parse(r.stdout);
  } catch {
    assert.fail(`call --json printed non-JSON: ${describeRun(r)}`);
  }
  assert.equal(result.task, undefined, `the CLI printed the task handle instead of the result: ${r.stdout}`);
  assert.notEqual(result.isError, true, r.stdout);
  assert.equal(result.content?.length, 1, r.stdout);
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

/** What only the finished report carries: every stage ticked, and the task's own lifecycle. */
function assertFinishedReport(report, { topic, heading, clarification, statusLine }) {
  assert.ok(report.startsWith(`# Research Report: ${heading}\n`), `report heading: ${report.slice(0, 200)}`);
  assert.match(report, new RegExp(`^- \\*\\*Topic\\*\\*: ${escape(topic)}$`, 'm'));
  STAGES.forEach((stage, i) => assert.ok(report.includes(`- Stage ${i + 1}: ${stage} ✓`), `stage ${i + 1} ticked`));
  assert.ok(report.includes(`3. Status progressed: ${statusLine}`), `status line ${statusLine} in:\n${report}`);
  if (clarification === undefined) {
    assert.doesNotMatch(report, /Clarification/);
  } else {
    assert.ok(report.includes(`- **Clarification**: ${clarification}`), `clarification ${clarification} in:\n${report}`);
  }
  assert.ok(report.trimEnd().endsWith('*This is a simulated research report from the Everything MCP Server.*'));
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLAIN = '`working` → `completed`';
const ELICITED = '`working` → `input_required` → `working` → `completed`';

describe('oxmcp call -> official everything server: a taskSupport "required" tool runs as a 2025-11-25 task', GROUP, () => {
  let info;
  before(async () => {
    const r = await oxmcp(['inspect', '--json']);
    assert.equal(r.code, 0, describeRun(r));
    info = JSON.parse(r.stdout);
  });

  it('the server declares tasks for tools/call and the tool requires a task', T, () => {
    assert.equal(info.protocolVersion, '2025-11-25');
    const tasks = info.capabilities.tasks;
    assert.ok(tasks?.requests?.tools?.call, `capabilities.tasks: ${JSON.stringify(tasks)}`);
    const tool = info.tools.find((t) => t.name === TOOL);
    assert.ok(tool, `${TOOL} is listed (the server lists it once initialized)`);
    assert.equal(tool.execution?.taskSupport, 'required');
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['ambiguous', 'topic']);
    assert.deepEqual(tool.inputSchema.required, ['topic']);
  });

  it('KEY=VALUE call prints the finished research report (plain output)', T, async () => {
    const r = await oxmcp(['call', TOOL, 'topic=quantum error correction']);
    assert.equal(r.code, 0, describeRun(r));
    assertFinishedReport(r.stdout, {
      topic: 'quantum error correction',
      heading: 'quantum error correction',
      statusLine: PLAIN,
    });
    // Four stages of a second each: the CLI waited for the task, not just its creation.
    assert.ok(r.ms >= 4_000, `returned after ${r.ms} ms`);
    assert.doesNotMatch(r.stdout, /"taskId"|"status"\s*:\s*"working"/, 'no task handle printed');
  });

  it('--json prints the CallToolResult of tasks/result', T, async () => {
    const r = await oxmcp(['call', '--json', TOOL, 'topic=tide pools', 'ambiguous=false']);
    assertFinishedReport(reportOf(r), { topic: 'tide pools', heading: 'tide pools', statusLine: PLAIN });
  });

  it('a JSON object of arguments works the same (the CLI has not listed the tools then)', T, async () => {
    const r = await oxmcp(['call', '--json', TOOL, JSON.stringify({ topic: 'bridges' })]);
    assertFinishedReport(reportOf(r), { topic: 'bridges', heading: 'bridges', statusLine: PLAIN });
  });

  it('ambiguous=true: the elicitation the task sends (via tasks/result) is answered on the terminal', T, async () => {
    // The form's one field is `interpretation`, a choice among programming, snake, comedy.
    const r = await oxmcpWithInput(['call', '--json', TOOL, 'topic=python', 'ambiguous=true'], 'snake\n');
    assert.match(r.stderr, /The research query "python" could have multiple interpretations/, describeRun(r));
    assert.match(r.stderr, /snake=Python snake species/, 'the choices were offered');
    const report = reportOf(r);
    assertFinishedReport(report, { topic: 'python', heading: 'python (snake)', clarification: 'snake', statusLine: ELICITED });
    assert.ok(report.includes('After receiving clarification ("snake"), the task resumed processing and completed.'), report);
  });

  it('ambiguous=true answered !decline: the server continues with its default', T, async () => {
    const r = await oxmcpWithInput(['call', '--json', TOOL, 'topic=python', 'ambiguous=true'], '!decline\n');
    const clarification = 'User declined - using default interpretation';
    assertFinishedReport(reportOf(r), {
      topic: 'python',
      heading: `python (${clarification})`,
      clarification,
      statusLine: ELICITED,
    });
  });

  it('ambiguous=true with no terminal input (end of input cancels the elicitation)', T, async () => {
    const r = await oxmcp(['call', '--json', TOOL, 'topic=python', 'ambiguous=true']);
    const clarification = 'User cancelled - using default interpretation';
    assertFinishedReport(reportOf(r), {
      topic: 'python',
      heading: `python (${clarification})`,
      clarification,
      statusLine: ELICITED,
    });
  });

  it('invalid arguments: the JSON-RPC error of the task-augmented tools/call is reported (exit 1)', T, async () => {
    // McpServer validates the arguments before creating a task and turns the failure into
    // a CallToolResult { isError: true }; the SDK's Server then refuses that as the answer
    // to a task-augmented request: tools/call fails with -32602 "Invalid task creation
    // result". (KEY=VALUE makes the CLI list the tools first: it knows a task is needed.)
    const r = await oxmcp(['call', '--json', TOOL, 'ambiguous=false']);
    assert.equal(r.code, 1, describeRun(r));
    assert.equal(r.stdout, '', 'no result printed');
    assert.match(r.stderr, /Invalid task creation result/, describeRun(r));
    assert.match(r.stderr, /-32602/, describeRun(r));
  });
});
