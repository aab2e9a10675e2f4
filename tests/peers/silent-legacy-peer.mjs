// A 2025-11-25 stdio server (the official SDK v1) that never answers a method it does not know: it drops
// server/discover and any other unknown request without a word, as some hand-written servers do. A client
// in era auto must give up its probe within the probe timeout and go on with initialize.
// Tools: hello {} answers "hello". Usage: node silent-legacy-peer.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const known = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);
const server = new McpServer({ name: 'silent-legacy-peer', version: '1.0.0' });
server.registerTool('hello', { description: 'Says hello', inputSchema: z.object({}).shape }, async () => ({
  content: [{ type: 'text', text: 'hello' }],
}));
const transport = new StdioServerTransport();
await server.connect(transport);
// Wrapped after connect, which set onmessage: unknown requests never reach the SDK (which would answer -32601).
const inner = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message && message.id !== undefined && message.method && !known.has(message.method)) {
    process.stderr.write(`silent-legacy-peer: dropped ${message.method}\n`);
    return;
  }
  inner(message, extra);
};
