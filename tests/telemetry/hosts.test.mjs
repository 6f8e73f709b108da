// Every host's engine exports to Jaeger and Prometheus, in both protocol eras (run.sh starts
// both; hosts.sh builds the hosts):
//  - each host's scenario server (tests/scenarios/README.md) called by `oxmcp call`: its
//    server span is the child of the CLI's client span, in the trace the CLI printed, and
//    names the era's protocol version, and Prometheus counts the server's call;
//  - each host client calling its own host's scenario server: Jaeger holds a trace of the
//    client process with its client span and, as that span's child, the server's span;
//    Prometheus counts the call on both sides (a short-lived process exports its metrics as
//    it exits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chain, durations, envFor, run, tracesWith, until } from './jaeger.mjs';

const { OXMCP_BIN, HOSTS_JSON } = process.env;
const hosts = JSON.parse(readFileSync(HOSTS_JSON, 'utf8'));
// What the server span's mcp.protocol.version is in each era.
const ERAS = { session: /^2025-\d\d-\d\d$/, stateless: /^2026-07-28$/ };
// JVM and mono start slowly on 2 busy cores.
const options = { timeout: 180_000 };

for (const [host, command] of Object.entries(hosts.servers)) {
  for (const [era, version] of Object.entries(ERAS)) {
    test(`the ${host} server continues the trace of oxmcp call (${era} era)`, options, async () => {
      const service = `${host}-server-${era}`;
      const { stdout, stderr } = await run(OXMCP_BIN,
        ['call', '--era', era, '-e', `OTEL_SERVICE_NAME=${service}`, 'echo', `text=${host} ${era}`, '--', ...command],
        { env: envFor('oxmcp-call'), timeout: 150_000 });
      assert.match(stdout, new RegExp(`${host} ${era}`));
      const traceId = stderr.match(/trace id: ([0-9a-f]{32})/)?.[1];
      assert.ok(traceId, `no trace id in ${stderr}`);
      const [, client, server] = await chain(traceId, [
        ['oxmcp-call', 'oxmcp call echo', 'internal'],
        ['oxmcp-call', 'tools/call echo', 'client'],
        [service, 'tools/call echo', 'server'],
      ]);
      for (const s of [client, server]) assert.match(String(s.tags['mcp.protocol.version']), version, `${s.kind} span ${JSON.stringify(s.tags)}`);
      assert.equal(server.tags['gen_ai.tool.name'], 'echo');
      await durations('server', service, 'echo');
    });
  }
}

// A client with ERA in its command runs once per era, exporting as HOST-client-ERA; one
// without runs both eras at once (the first test runs it), exporting as HOST-client.
const runs = new Map();
function clientRun(host, template, era) {
  const perEra = template.includes('ERA');
  const service = perEra ? `${host}-client-${era}` : `${host}-client`;
  if (!runs.has(service)) {
    const [command, ...args] = template.map((a) => (a === 'ERA' ? era : a));
    runs.set(service, { service, done: run(command, args, { env: envFor(service), timeout: 150_000, maxBuffer: 16 << 20 }) });
  }
  return runs.get(service);
}

for (const [host, template] of Object.entries(hosts.clients)) {
  for (const [era, version] of Object.entries(ERAS)) {
    test(`the ${host} client's span is the parent of its server's (${era} era)`, options, async () => {
      const { service, done } = clientRun(host, template, era);
      await done;
      const [client, server] = await until(`a ${service} trace with a client and a server span`, async () => {
        for (const spans of await tracesWith(service, 'tools/call echo')) {
          const client = spans.find((s) => s.name === 'tools/call echo' && s.kind === 'client');
          const server = client && spans.find((s) => s.name === 'tools/call echo' && s.kind === 'server' && s.parent === client.id);
          if (server && version.test(String(server.tags['mcp.protocol.version']))) return [client, server];
        }
        return false;
      });
      assert.equal(client.service, service);
      assert.equal(server.service, service);
      for (const s of [client, server]) assert.match(String(s.tags['mcp.protocol.version']), version, `${s.kind} span ${JSON.stringify(s.tags)}`);
      await durations('client', service, 'echo');
      await durations('server', service, 'echo');
    });
  }
}
