// The official TypeScript SDK client against a Java (oxmcp) server.
//
//   node ts-client.mjs http URL
//   node ts-client.mjs stdio '["java","-cp","...","dev.oxmcp.ExampleServer","--stdio"]'
//
// Exercises the server and prints one JSON line with what it saw; the JUnit test asserts
// on it (and, in-process, on the Java handler's own state). Exits non-zero on any error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [mode, target] = process.argv.slice(2);
const transport =
  mode === 'http'
    ? new StreamableHTTPClientTransport(new URL(target))
    : (() => {
        const [command, ...args] = JSON.parse(target);
        return new StdioClientTransport({ command, args, stderr: 'inherit' });
      })();

const client = new Client({ name: 'ts-interop-client', version: '1.0.0' });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await client.connect(transport);

const text = (r) => r.content[0].text;
const out = { server: client.getServerVersion(), logs };

out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
out.echo = text(await client.callTool({ name: 'echo', arguments: { text: 'hi from TS' } }));
out.add = text(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }));
out.invalidArgs = await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } });

const progress = [];
out.progressResult = text(
  await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => progress.push([p.progress, p.total, p.message]) }),
);
out.progress = progress;

try {
  await client.callTool({ name: 'fail_rpc', arguments: {} });
  out.failRpc = 'no error';
} catch (e) {
  out.failRpc = { code: e.code, message: e.message, data: e.data };
}
out.failPlain = await client.callTool({ name: 'fail_plain', arguments: {} });

await client.setLoggingLevel('debug');
out.logResult = text(await client.callTool({ name: 'log', arguments: { text: 'from java' } }));

out.resource = (await client.readResource({ uri: 'test://java/hello' })).contents[0].text;
out.template = (await client.readResource({ uri: 'test://java/item/7' })).contents[0].text;
out.prompt = (await client.getPrompt({ name: 'greet', arguments: { name: 'TS' } })).messages[0].content.text;
out.completion = (
  await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } })
).completion.values;

// Cancellation: wait until the handler runs (its first progress), then abort.
const controller = new AbortController();
let started;
const running = new Promise((r) => (started = r));
const slow = client.callTool({ name: 'slow', arguments: { tag: 77, ms: 60000 } }, undefined, {
  signal: controller.signal,
  onprogress: () => started(),
  timeout: 120000,
});
await running;
controller.abort('the TS client cancels');
try {
  await slow;
  out.slow = 'completed';
} catch (e) {
  out.slow = 'rejected';
}
// The Java handler counts cancels it saw; poll until it reports ours.
const deadline = Date.now() + 20000;
for (;;) {
  out.cancellations = Number(text(await client.callTool({ name: 'cancellations', arguments: {} })));
  if (out.cancellations >= 1 || Date.now() > deadline) break;
  await new Promise((r) => setTimeout(r, 50));
}
out.afterCancel = text(await client.callTool({ name: 'echo', arguments: { text: 'still alive' } }));

await client.close();
console.log(JSON.stringify(out));
