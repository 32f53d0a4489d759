// The TypeScript SDK's McpServer on stdio with logging, whose "load_config" tool
// logs one line. With the argument "spread" it passes the text spread into an
// object ({...text}), as Desktop Commander does; without it, the text itself.
// Driven by pkg/rules/log_spread_tssdk_test.go.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const spread = process.argv[2] === 'spread';
const server = new McpServer({ name: 'ts-sdk-log-server', version: '1.32.2' }, { capabilities: { logging: {} } });
server.tool('load_config', async () => {
  const text = 'Loading config from ~/.claude-server-commander/config.json';
  await server.server.sendLoggingMessage({ level: 'info', logger: 'config', data: spread ? { ...text } : text });
  return { content: [{ type: 'text', text: 'config loaded' }] };
});
await server.connect(new StdioServerTransport());
