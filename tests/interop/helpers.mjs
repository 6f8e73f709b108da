// Shared helpers for the interop tests (not a test file itself).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The oxmcp CLI under test; run.sh exports OXMCP_BIN. A missing binary fails the tests. */
export function oxmcpBin() {
  const bin = process.env.OXMCP_BIN;
  if (!bin) throw new Error('OXMCP_BIN is not set: run the tests through tests/interop/run.sh');
  if (!existsSync(bin)) throw new Error(`OXMCP_BIN=${bin} does not exist`);
  return bin;
}

/** Resolves when `predicate()` returns a truthy value; rejects after `timeoutMs`. */
export async function waitFor(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Decodes base64 and returns the bytes. */
export const b64 = (s) => Buffer.from(s, 'base64');

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Runs a command to completion in its own process group, so that on a timeout (or in an
 * `after` hook, through killAll) the command and anything it started can be killed by
 * the group's pid. Resolves { code, signal, stdout, stderr }.
 */
export class ProcessRunner {
  constructor() {
    this.live = new Set();
  }

  run(cmd, args, { timeoutMs = 30_000, cwd = HERE, env } = {}) {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: env ? { ...process.env, ...env } : process.env,
      });
      this.live.add(child.pid);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      const timer = setTimeout(() => {
        killGroup(child.pid);
        reject(new Error(`${cmd} ${args.join(' ')} timed out after ${timeoutMs} ms\nstderr: ${stderr}`));
      }, timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        this.live.delete(child.pid);
        reject(e);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        this.live.delete(child.pid);
        // The server the CLI spawned must not outlive it.
        killGroup(child.pid);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  killAll() {
    for (const pid of this.live) killGroup(pid);
    this.live.clear();
  }
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

// --- HTTP servers -------------------------------------------------------------------------

/** A TCP port on 127.0.0.1 that was free a moment ago (bind port 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Process groups of the HTTP servers still running; killed if the test process exits early. */
const liveServers = new Set();
process.on('exit', () => {
  for (const pid of liveServers) killGroup(pid);
});

/**
 * Starts a server that listens on a free 127.0.0.1 port, in its own process group, and
 * resolves once a line of its output matches `ready`. A start that fails (e.g. the port
 * was taken in between) is retried on a fresh port.
 *
 *   name     for messages
 *   command  the executable
 *   args     (port) => argument list
 *   env      (port) => extra environment variables (optional)
 *   ready    RegExp tested against stdout + stderr
 *
 * Resolves { port, pid, output(), stop() }; stop() sends SIGTERM to the process and waits
 * for it (SIGKILL to its group after 5 s).
 */
export async function startHttpServer({ name, command, args, env = () => ({}), ready, attempts = 3, timeoutMs = 20_000 }) {
  const failures = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = await freePort();
    try {
      return await startOnce({ name, command, args: args(port), env: env(port), ready, timeoutMs, port });
    } catch (e) {
      failures.push(`attempt ${attempt} (port ${port}): ${e.message}`);
    }
  }
  throw new Error(`${name} did not start:\n${failures.join('\n')}`);
}

function startOnce({ name, command, args, env, ready, timeoutMs, port }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: HERE,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    liveServers.add(child.pid);
    let output = '';
    let started = false;
    let exited = false;
    const exitedPromise = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
    exitedPromise.then(() => {
      exited = true;
      liveServers.delete(child.pid);
    });
    const handle = {
      port,
      pid: child.pid,
      output: () => output,
      async stop() {
        if (!exited) {
          try {
            process.kill(child.pid, 'SIGTERM');
          } catch {
            // already gone
          }
        }
        const timer = setTimeout(() => killGroup(child.pid), 5_000);
        const result = await exitedPromise;
        clearTimeout(timer);
        // Anything the server started goes with it.
        killGroup(child.pid);
        liveServers.delete(child.pid);
        return result;
      },
    };
    const onData = (d) => {
      output += d;
      if (!started && ready.test(output)) {
        started = true;
        clearTimeout(timer);
        resolve(handle);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => {
      if (started) return;
      killGroup(child.pid);
      reject(new Error(`${name}: no ready line after ${timeoutMs} ms; output:\n${output}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      liveServers.delete(child.pid);
      if (!started) reject(e);
    });
    exitedPromise.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${name} exited (code ${code}, signal ${signal}) before ready; output:\n${output}`));
    });
  });
}

/**
 * `oxmcp everything-server --http 127.0.0.1:PORT [extra...]`; resolves a startHttpServer handle with .url.
 * With OXMCP_CLUSTER_URL set (tests/scaleout/run.sh), the default server is that cluster's
 * load balancer instead: several `--redis` nodes that must act as this one server.
 */
export async function startOxmcpHttp(extra = []) {
  const cluster = process.env.OXMCP_CLUSTER_URL;
  if (cluster && extra.length === 0) {
    const base = new URL(cluster);
    return { url: `${base.origin}/mcp`, sseUrl: `${base.origin}/sse`, port: Number(base.port), stop: async () => {} };
  }
  const server = await startHttpServer({
    name: `oxmcp everything-server --http ${extra.join(' ')}`.trim(),
    command: oxmcpBin(),
    args: (port) => ['everything-server', '--http', `127.0.0.1:${port}`, ...extra],
    ready: /oxmcp everything-server listening on http:\/\/127\.0\.0\.1:\d+\/mcp/,
  });
  server.url = `http://127.0.0.1:${server.port}/mcp`;
  server.sseUrl = `http://127.0.0.1:${server.port}/sse`;
  return server;
}

// --- TypeScript SDK client plumbing -------------------------------------------------------

/**
 * Records a client transport's JSON-RPC traffic into `wire` ({ dir: 'in' | 'out', msg }) and
 * hands incoming messages to the SDK one per macrotask, in wire order. The SDK (1.x) handles
 * a notification in a microtask but completes a response synchronously, so a notification
 * that shares a chunk with the response behind it would be handled after the request
 * resolved (typescript-sdk issue #2580: a final progress notification is dropped as
 * "unknown token"). With this shim the client sees what the server sent, in the order sent.
 * Call before client.connect(transport).
 */
export function recordWire(transport, wire) {
  let deliver;
  let chain = Promise.resolve();
  const inOrder = (msg, extra) => {
    wire.push({ dir: 'in', msg });
    chain = chain.then(() => new Promise((r) => setImmediate(r))).then(() => deliver?.(msg, extra));
  };
  // The SDK assigns transport.onmessage in connect(); keep ours in front of whatever it sets.
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (deliver ? inOrder : undefined),
    set: (fn) => {
      deliver = fn;
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (msg, options) => {
    wire.push({ dir: 'out', msg });
    return send(msg, options);
  };
}

/**
 * A fetch for the SDK's HTTP transports that records every HTTP exchange into `exchanges`:
 * { method, url, requestHeaders, body (parsed JSON of a POST), status, contentType,
 *   sessionId (the response's mcp-session-id), headers (response) }, and `settled`.
 */
export function recordingFetch(exchanges, base = fetch) {
  return async (url, init = {}) => {
    const requestHeaders = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    let body;
    if (typeof init.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    const entry = { method: init.method ?? 'GET', url: String(url), requestHeaders, body };
    // `settled` (not enumerable: entries are compared as plain records) resolves once the
    // response is recorded: an answer POSTed to one node of a cluster may be acknowledged
    // after the result it unblocked has already arrived through another.
    let settle;
    Object.defineProperty(entry, 'settled', { value: new Promise((resolve) => (settle = resolve)) });
    exchanges.push(entry);
    try {
      const response = await base(url, init);
      entry.status = response.status;
      entry.contentType = response.headers.get('content-type');
      entry.sessionId = response.headers.get('mcp-session-id');
      entry.headers = Object.fromEntries(response.headers.entries());
      return response;
    } finally {
      settle();
    }
  };
}

/** The fixture names of `oxmcp everything-server` (cli/src/everything.rs). */
export const EXPECTED_TOOLS = [
  'echo',
  'slow',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_reconnection',
];

export const EXPECTED_PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
  // The stateless era's multi round-trip fixture (it elicits in either era).
  'test_input_required_result_prompt',
];
