// The TypeScript SDK's Streamable HTTP server as its README wires it (a map of
// transports by session id; a request without a known session that is no
// initialize is answered 400), with one tool. Prints "listening PORT" once it
// listens on 127.0.0.1. Driven by pkg/rules/http_tssdk_test.go.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const transports = {};

function newServer() {
  const server = new McpServer({ name: 'ts-sdk-server', version: '1.32.2' });
  server.tool('echo', { text: z.string() }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

const listener = http.createServer(async (req, res) => {
  let body;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    body = JSON.parse(Buffer.concat(chunks).toString() || 'null');
  }
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? transports[sessionId] : undefined;
  if (!transport) {
    if (req.method === 'POST' && !sessionId && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { transports[id] = transport; },
      });
      transport.onclose = () => { if (transport.sessionId) delete transports[transport.sessionId]; };
      await newServer().connect(transport);
    } else {
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({
        jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null,
      }));
      return;
    }
  }
  await transport.handleRequest(req, res, body);
});

listener.listen(0, '127.0.0.1', () => console.log(`listening ${listener.address().port}`));
