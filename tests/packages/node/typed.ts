// A typed client of the packaged CLI's everything server, compiled with tsc --strict
// against the package's .d.ts.
import { Client, McpError, type CallToolResult, type Tool } from 'oxmcp'

async function main(): Promise<void> {
  const cli: string | undefined = process.env.OXMCP
  if (!cli) throw new Error('OXMCP names the oxmcp CLI')
  const client: Client = await Client.stdio(cli, ['everything-server', '--stdio'])
  try {
    const tools: Tool[] = await client.listTools()
    const result: CallToolResult = await client.callTool('echo', { text: 'hello' }, { timeout: 30_000 })
    const first = result.content[0]
    const text: string = first.type === 'text' ? first.text : ''
    console.log('echo ->', result.isError ? 'error' : text.replace(/^Echo: /, ''))
    console.log('tools > 5:', tools.length > 5)
  } catch (err: unknown) {
    if (err instanceof McpError) console.error('MCP error', err.code, err.message)
    throw err
  } finally {
    await client.close()
  }
}
main().catch((err: unknown) => { console.error(err); process.exit(1) })
