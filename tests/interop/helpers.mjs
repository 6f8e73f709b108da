// Shared helpers for the interop tests (not a test file itself).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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

  run(cmd, args, { timeoutMs = 30_000, cwd = HERE } = {}) {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
