// The official TypeScript SDK client against a Kotlin (oxmcp) server.
//
//   node ts-client.mjs http URL
//   node ts-client.mjs stdio '["java", "-cp", "...", "dev.oxmcp.kotlin.interop.InteropServerKt"]'
//
// Uses the server's tools, resource and prompt, cancels a slow call once it has started,
// and prints one JSON line of what it saw for the JUnit test to check. Exits non-zero on
// any error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { recordWire } from '../../../../tests/interop/helpers.mjs';

const [mode, target] = process.argv.slice(2);
let transport;
if (mode === 'http') {
  transport = new StreamableHTTPClientTransport(new URL(target));
} else {
  const [command, ...args] = JSON.parse(target);
  transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
}
// The SDK handles a notification in a microtask but resolves a response at once, so a
// final progress notification that shares one read with its response is dropped as an
// unknown token (typescript-sdk issue #2580; the engine writes it alone and the response a
// millisecond later, which a loaded machine can still read as one chunk). The interop
// suite's shim hands the SDK one incoming message per macrotask, in wire order.
recordWire(transport, []);

const client = new Client({ name: 'ts-sdk-client', version: '1.0.0' });
await client.connect(transport);

const firstText = (result) => result.content[0].text;
const seen = { server: client.getServerVersion() };
seen.tools = (await client.listTools()).tools.map((t) => t.name).sort();
seen.echo = firstText(await client.callTool({ name: 'echo', arguments: { text: 'from TS' } }));
const progress = [];
seen.add = firstText(
  await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  }),
);
seen.progress = progress;
try {
  await client.callTool({ name: 'fail_rpc', arguments: {} });
  seen.failRpc = 'no error';
} catch (e) {
  seen.failRpc = e.code;
}
seen.resource = (await client.readResource({ uri: 'kotlin://hello' })).contents[0].text;
seen.prompt = (await client.getPrompt({ name: 'greet', arguments: { name: 'TS' } })).messages[0].content.text;

// Cancellation: abort once the handler reports that it started (its progress).
const controller = new AbortController();
try {
  await client.callTool({ name: 'slow', arguments: {} }, undefined, {
    signal: controller.signal,
    onprogress: () => controller.abort('enough'),
  });
  seen.slow = 'finished';
} catch (e) {
  seen.slow = 'aborted';
}
seen.cancelled = firstText(await client.callTool({ name: 'was_cancelled', arguments: {} }));
await client.close();
console.log(JSON.stringify(seen));
