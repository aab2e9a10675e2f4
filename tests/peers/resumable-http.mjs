// A Streamable HTTP peer built on the official SDK with an event store, so a response stream that
// the server closes early can be resumed with GET + Last-Event-ID.
// Tool `close-then-echo` closes its own SSE stream before answering: the answer is only reachable
// by resuming. Usage: node resumable-http.mjs PORT  (prints "listening PORT" when ready)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { z } from 'zod';

const port = Number(process.argv[2] || 0);
const transports = new Map();

function makeServer() {
  const server = new McpServer({ name: 'resumable-peer', version: '1.0.0' });
  server.registerTool('close-then-echo', {
    description: 'Closes the response stream, then answers on the stored stream',
    inputSchema: { message: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ message }, extra) => {
    extra.closeSSEStream?.();
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { content: [{ type: 'text', text: `resumed: ${message}` }] };
  });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport) {
    if (req.method !== 'POST' || body?.method !== 'initialize') {
      res.writeHead(404).end('unknown session');
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 100,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    await makeServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
httpServer.listen(port, '127.0.0.1', () => {
  console.log(`listening ${httpServer.address().port}`);
});
