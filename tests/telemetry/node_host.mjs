// The Node host's client for hosts.test.mjs: `node node_host.mjs ERA CMD...` calls `echo` of
// the server CMD starts, in ERA, with the engine's telemetry from the OTEL_* variables.
import { Client } from '../../bindings-node/index.mjs'

const [era, command, ...args] = process.argv.slice(2)
const client = await Client.stdio(command, args, { era })
const result = await client.callTool('echo', { text: `node ${era}` })
await client.close()
if (result.content[0].text !== `node ${era}`) throw new Error(`unexpected answer ${JSON.stringify(result)}`)
