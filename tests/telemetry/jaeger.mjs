// What the telemetry tests share: processes that export to the Jaeger run.sh started,
// traces read back through Jaeger's query API, and metrics read back from the Prometheus
// that scrapes Jaeger's collector.
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';

const { OTLP_ENDPOINT, JAEGER_QUERY, PROMETHEUS } = process.env;
export const run = promisify(execFile);
const children = [];

// Every process exports to Jaeger, in small batches so the test need not wait long.
export function envFor(service) {
  return {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_ENDPOINT,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
  };
}

// A long-running process exporting as `service`; stopAll() ends every one.
export function start(command, args, service) {
  const child = spawn(command, args, { env: envFor(service), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  children.push(child);
  return { child, stderr: () => stderr };
}

export function stopAll() {
  for (const c of children) c.kill('SIGTERM');
}

export async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export async function until(what, f, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try { last = await f(); if (last) return last; } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
}

// One trace of Jaeger's answer as spans with their service, kind, tags and parent.
function spansOf(data) {
  const spans = data.spans.map((s) => ({
    id: s.spanID,
    name: s.operationName,
    service: data.processes[s.processID].serviceName,
    parent: s.references.find((r) => r.refType === 'CHILD_OF')?.spanID,
    tags: Object.fromEntries(s.tags.map((t) => [t.key, t.value])),
  }));
  for (const s of spans) s.kind = s.tags['span.kind'] ?? 'internal';
  return spans;
}

export async function traceOf(traceId) {
  const res = await fetch(`${JAEGER_QUERY}/api/traces/${traceId}`);
  if (!res.ok) return [];
  const [data] = (await res.json()).data ?? [];
  return data ? spansOf(data) : [];
}

// The traces Jaeger holds with an `operation` span of `service`, each as its spans.
export async function tracesWith(service, operation) {
  const query = new URLSearchParams({ service, operation, limit: '50' });
  const res = await fetch(`${JAEGER_QUERY}/api/traces?${query}`);
  if (!res.ok) return [];
  return ((await res.json()).data ?? []).map(spansOf);
}

export const find = (spans, service, name, kind) => spans.find((s) => s.service === service && s.name === name && (!kind || s.kind === kind));

// Waits until the trace holds the chain, each [service, name, kind] the child of the one
// before; returns its spans.
export async function chain(traceId, links) {
  return until(`trace ${traceId}: ${links.map((l) => l.join(' ')).join(' -> ')}`, async () => {
    const spans = await traceOf(traceId);
    const found = links.map(([service, name, kind]) => find(spans, service, name, kind));
    if (found.some((s) => !s)) return false;
    for (let i = 1; i < found.length; i++) {
      assert.equal(found[i].parent, found[i - 1].id, `${links[i].join(' ')} is a child of ${links[i - 1].join(' ')}`);
    }
    return found;
  });
}

// The series a PromQL query selects, now.
export async function promQuery(q) {
  const res = await fetch(`${PROMETHEUS}/api/v1/query?query=${encodeURIComponent(q)}`);
  return (await res.json()).data?.result ?? [];
}

// Waits until Prometheus holds SIDE's (client or server) duration histogram of tools/call
// TOOL exported by service JOB, with at least one call counted.
export async function durations(side, job, tool) {
  const name = `mcp_${side}_operation_duration_seconds_count`;
  const series = await until(`${name} of ${job} in Prometheus`, async () => {
    const r = await promQuery(`${name}{mcp_method_name="tools/call", gen_ai_tool_name="${tool}", exported_job="${job}"}`);
    return r.length > 0 && r;
  });
  assert.ok(series.some((s) => Number(s.value[1]) >= 1), JSON.stringify(series));
}
