// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) between oxmcp and rmcp, the
// official Rust SDK (crate rmcp 3.9.0, built from tests/interop/rmcp by run.sh), in both
// eras: the session era (initialize, protocol 2025-11-25) and the stateless one
// (server/discover, protocol 2026-07-28, per-request _meta capabilities).
//   - the oxmcp Node client (bindings-node, Client.stdio + callTool({ task: true })) against
//     rmcp-task-server, whose slow_sum runs as an rmcp TaskManager task;
//   - rmcp-task-client (rmcp's client, tasks/get polling) against
//     `oxmcp everything-server --stdio` and its slow_compute task tool.
// Each direction also checks tasks/cancel and that a request without the extension is
// answered inline.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';

import { HERE, oxmcpBin, ProcessRunner, waitFor } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('../../bindings-node/index.cjs');

const T = { timeout: 60_000 };
const runner = new ProcessRunner();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'rmcp-tasks-'));
after(() => {
  runner.killAll();
  rmSync(scratch, { recursive: true, force: true });
});

/** The rmcp binaries; run.sh exports RMCP_TASK_BIN_DIR (where it built them). */
function rmcpBin(name) {
  const dir = process.env.RMCP_TASK_BIN_DIR ?? path.join(HERE, '../../target/debug');
  const bin = path.join(dir, name);
  if (!existsSync(bin)) throw new Error(`${bin} does not exist: run the tests through tests/interop/run.sh`);
  return bin;
}

const ERAS = ['session', 'stateless'];

describe('oxmcp Node client -> rmcp task server (stdio)', () => {
  for (const era of ERAS) {
    it(`slow_sum runs as an rmcp task and the client follows it to completed (${era} era)`, T, async () => {
      const client = await Client.stdio(rmcpBin('rmcp-task-server'), [], { era });
      try {
        assert.equal(client.era, era);
        assert.equal(client.protocolVersion, era === 'session' ? '2025-11-25' : '2026-07-28');
        assert.ok(client.serverCapabilities.extensions?.['io.modelcontextprotocol/tasks'], 'rmcp declares the tasks extension');
        const tools = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'slow_sum'), 'slow_sum is listed');

        const statuses = [];
        const started = Date.now();
        const r = await client.callTool('slow_sum', { a: 2, b: 3 }, { task: true, onProgress: (p) => statuses.push(p.message) });
        assert.deepEqual(r.content, [{ type: 'text', text: 'sum: 5' }]);
        assert.notEqual(r.isError, true);
        assert.ok(Date.now() - started >= 250, 'the task slept ~300 ms');
        assert.equal(statuses[0], 'working', `statuses: ${statuses}`);
        assert.equal(statuses.at(-1), 'completed', `statuses: ${statuses}`);
        assert.ok(statuses.every((s) => s === 'working' || s === 'completed'), `statuses: ${statuses}`);

        // Fractional arguments, and two tasks at once.
        const [x, y] = await Promise.all([
          client.callTool('slow_sum', { a: 1.5, b: 2 }, { task: true }),
          client.callTool('slow_sum', { a: -4, b: 10 }, { task: true }),
        ]);
        assert.equal(x.content[0].text, 'sum: 3.5');
        assert.equal(y.content[0].text, 'sum: 6');

        // Without { task: true } the request declares no tasks extension: rmcp answers inline.
        const inline = [];
        const plain = await client.callTool('slow_sum', { a: 2, b: 3 }, { onProgress: (p) => inline.push(p.message) });
        assert.equal(plain.content[0].text, 'sum: 5');
        assert.deepEqual(inline, []);
      } finally {
        await client.close();
      }
    });

    it(`aborting the call sends tasks/cancel and stops the rmcp task (${era} era)`, T, async () => {
      const log = path.join(scratch, `cancel-${era}.log`);
      const client = await Client.stdio(rmcpBin('rmcp-task-server'), [], { era, env: { RMCP_TASK_LOG: log } });
      try {
        const statuses = [];
        const controller = new AbortController();
        const waiting = client.callTool('slow_sum', { a: 1, b: 1, ms: 30_000 }, {
          task: true,
          signal: controller.signal,
          onProgress: (p) => {
            statuses.push(p.message);
            controller.abort();
          },
        });
        await assert.rejects(waiting, (e) => e.name === 'AbortError');
        assert.equal(statuses[0], 'working');
        const line = await waitFor(
          () => existsSync(log) && readFileSync(log, 'utf8').match(/^cancelled (\S+)$/m),
          10_000,
          'the rmcp task to see tasks/cancel',
        );
        // The task stays known, as cancelled.
        const _meta = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
        const task = await client.request('tasks/get', { taskId: line[1], _meta });
        assert.equal(task.status, 'cancelled');
        assert.equal(task.resultType, 'complete');
      } finally {
        await client.close();
      }
    });
  }
});

describe('rmcp task client -> oxmcp everything server (stdio)', () => {
  for (const era of ERAS) {
    it(`slow_compute runs as an oxmcp task and rmcp polls it to completed (${era} era)`, T, async () => {
      const r = await runner.run(rmcpBin('rmcp-task-client'), ['--era', era, oxmcpBin(), 'everything-server', '--stdio']);
      assert.equal(r.code, 0, `rmcp-task-client exited ${r.code}: ${r.stderr}`);
      assert.equal(r.stdout, 'x: computed in 0.3 s\n');
      const statuses = [...r.stderr.matchAll(/^status: (\S+)$/gm)].map((m) => m[1]);
      assert.equal(statuses[0], 'working', r.stderr);
      assert.equal(statuses.at(-1), 'completed', r.stderr);
      assert.match(r.stderr, new RegExp(`era ${era}, protocol ${era === 'session' ? '2025-11-25' : '2026-07-28'}`));
    });

    it(`tasks/cancel from rmcp ends the oxmcp task cancelled (${era} era)`, T, async () => {
      const args = ['--era', era, '--cancel-after', '200', '--args', '{"seconds": 30, "label": "long"}'];
      const r = await runner.run(rmcpBin('rmcp-task-client'), [...args, oxmcpBin(), 'everything-server', '--stdio']);
      assert.equal(r.code, 0, `rmcp-task-client exited ${r.code}: ${r.stderr}`);
      assert.equal(r.stdout, 'cancelled\n');
      assert.match(r.stderr, /^sent tasks\/cancel$/m);
      const statuses = [...r.stderr.matchAll(/^status: (\S+)$/gm)].map((m) => m[1]);
      assert.equal(statuses.at(-1), 'cancelled', r.stderr);
    });

    it(`an rmcp client without the tasks extension gets slow_compute inline (${era} era)`, T, async () => {
      const r = await runner.run(rmcpBin('rmcp-task-client'), ['--era', era, '--no-tasks', oxmcpBin(), 'everything-server', '--stdio']);
      assert.equal(r.code, 0, `rmcp-task-client exited ${r.code}: ${r.stderr}`);
      assert.equal(r.stdout, 'x: computed in 0.3 s\n');
      assert.doesNotMatch(r.stderr, /^status: /m);
    });
  }
});
