// The TypeScript SDK's Streamable HTTP client, as an application uses it: it
// connects to the URL given, calls the echo tool, prints "called", then waits
// for a line on stdin and calls it again, printing "error: ..." if that fails,
// and exits. Driven by pkg/rules/http_tssdk_test.go.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'ts-sdk-client', version: '1.32.2' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
await client.callTool({ name: 'echo', arguments: { text: 'first' } });
console.log('called');
const lines = createInterface({ input: process.stdin });
for await (const _ of lines) break;
try {
  await client.callTool({ name: 'echo', arguments: { text: 'second' } });
  console.log('called again');
} catch (err) {
  console.log(`error: ${err.message}`);
}
await client.close();
process.exit(0);
