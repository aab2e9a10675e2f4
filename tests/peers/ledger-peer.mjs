// The fault matrix's witness: an MCP server (official SDK) that records every tool run in a ledger
// file, one JSON line per run, so tests count what the SERVER did, never what the client believes.
// The file outlives the process, so runs before a kill or a respawn still count.
//
// Tools:
//   write {note}        write-capable (no readOnlyHint): appends to the ledger, returns its length
//   read {}             readOnlyHint: true: returns the number of writes in the ledger
//   set {key, value}    idempotentHint: true (not read-only)
//   sleep {ms}          readOnlyHint: true: waits, then answers
//   sleep-write {ms}    write-capable: records the run, waits, then answers
// Usage: node ledger-peer.mjs stdio LEDGER_FILE
//        node ledger-peer.mjs http PORT LEDGER_FILE   (prints "listening PORT")
//        node ledger-peer.mjs sse PORT LEDGER_FILE    legacy HTTP+SSE (SDK v1 SSEServerTransport): GET /sse,
//                                                     POST /messages?sessionId=…  (prints "listening PORT")
// Env LEDGER_KEEPALIVE_MS (http and sse): the HTTP server's keep-alive timeout (Node's default is 5 s), for
// the keep-alive race test: an idle connection the server closes just before the client reuses it.
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

const mode = process.argv[2];
const ledger = mode === 'http' || mode === 'sse' ? process.argv[4] : process.argv[3];
if (!ledger) {
  console.error('usage: ledger-peer.mjs stdio LEDGER | http PORT LEDGER | sse PORT LEDGER');
  process.exit(2);
}

function record(tool, extra, args) {
  const attempt = extra?._meta?.['io.github.mcpscope/attempt'] ?? null;
  fs.appendFileSync(ledger, JSON.stringify({ tool, args, attempt, pid: process.pid,
    session: extra?.sessionId ?? null, at: Date.now() }) + '\n');
}

function entries() {
  if (!fs.existsSync(ledger)) return [];
  return fs.readFileSync(ledger, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });

function makeServer() {
  const server = new McpServer({ name: 'ledger-peer', version: '1.0.0' });
  server.registerTool('write', { description: 'Appends to the ledger', inputSchema: { note: z.string().optional() } },
    async (args, extra) => { record('write', extra, args); return text(entries().filter((e) => e.tool === 'write').length); });
  server.registerTool('read', { description: 'Counts the writes', inputSchema: {},
    annotations: { readOnlyHint: true } },
    async (args, extra) => { record('read', extra, args); return text(entries().filter((e) => e.tool === 'write').length); });
  server.registerTool('set', { description: 'Sets a key (idempotent)', inputSchema: { key: z.string(), value: z.string() },
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false } },
    async (args, extra) => { record('set', extra, args); return text('ok'); });
  server.registerTool('sleep', { description: 'Waits, then answers', inputSchema: { ms: z.number() },
    annotations: { readOnlyHint: true } },
    async (args, extra) => { record('sleep', extra, args); await new Promise((r) => setTimeout(r, args.ms)); return text('slept'); });
  server.registerTool('sleep-write', { description: 'Records a write, waits, then answers', inputSchema: { ms: z.number() } },
    async (args, extra) => { record('sleep-write', extra, args); await new Promise((r) => setTimeout(r, args.ms)); return text('done'); });
  return server;
}

if (mode === 'stdio') {
  await makeServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (req.method !== 'POST' || body?.method !== 'initialize') {
        res.writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  if (process.env.LEDGER_KEEPALIVE_MS) httpServer.keepAliveTimeout = Number(process.env.LEDGER_KEEPALIVE_MS);
  httpServer.listen(Number(process.argv[3]), '127.0.0.1', () => console.log(`listening ${httpServer.address().port}`));
} else if (mode === 'sse') {
  // Legacy HTTP+SSE: one SSEServerTransport per GET /sse stream; its endpoint event names
  // /messages?sessionId=… (relative, so a proxy in front stays in the path of every POST).
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await makeServer().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId'));
      if (!transport) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Session not found');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  if (process.env.LEDGER_KEEPALIVE_MS) httpServer.keepAliveTimeout = Number(process.env.LEDGER_KEEPALIVE_MS);
  httpServer.listen(Number(process.argv[3]), '127.0.0.1', () => console.log(`listening ${httpServer.address().port}`));
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
