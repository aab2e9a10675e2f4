// The dual-era peer: one official SDK v2 server (@modelcontextprotocol/server 2.3.1) that speaks
// both 2025-11-25 (legacy, initialize) and 2026-07-28 (modern, server/discover + per-request _meta),
// over stdio (serveStdio: the opening message pins the connection's era) and Streamable HTTP
// (createMcpHandler: each POST is classified on its own; legacy POSTs are served statelessly, no
// Mcp-Session-Id; GET/DELETE answer 405).
// Tools: write {note} (write-capable: appends to the ledger, returns the number of writes),
//        read {} (readOnlyHint: returns the number of writes).
// Ledger (one JSON line each, as ledger-peer.mjs):
//   {"tool", args, attempt, era, pid, at}      a tool run (attempt: _meta io.github.mcpscope/attempt)
//   {"event":"request", method, era, pid, at}  every request the server instance received, with the
//                                              era the SDK served it in ("legacy" or "modern")
// Usage: node dual-era-peer.mjs stdio LEDGER_FILE
//        node dual-era-peer.mjs http PORT LEDGER_FILE   (127.0.0.1; prints "listening PORT"; 0 = any)
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { makeLedger, text, serveHttp } from './modern-common.mjs';

const mode = process.argv[2];
const ledgerFile = mode === 'http' ? process.argv[4] : process.argv[3];
if (!ledgerFile || (mode !== 'stdio' && mode !== 'http')) {
  console.error('usage: dual-era-peer.mjs stdio LEDGER | http PORT LEDGER');
  process.exit(2);
}
const ledger = makeLedger(ledgerFile);
const writes = () => ledger.entries().filter((e) => e.tool === 'write').length;

function factory(ctx) {
  const era = ctx?.era ?? 'legacy';
  const server = new McpServer({ name: 'dual-era-peer', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('write', { description: 'Appends to the ledger', inputSchema: z.object({ note: z.string().optional() }) },
    async (args, c) => { ledger.record('write', c, args, { era }); return text(writes()); });
  server.registerTool('read', { description: 'Counts the writes', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async (args, c) => { ledger.record('read', c, args, { era }); return text(writes()); });
  // The serving entry connects the instance to its (per-request or per-connection) transport; wrapping
  // the transport's onmessage after connect sees every request this instance serves.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (message?.method && message.id !== undefined) ledger.event('request', { method: message.method, era });
      return onmessage?.(message, extra);
    };
  };
  return server;
}

if (mode === 'stdio') serveStdio(factory);
else serveHttp(createMcpHandler(factory), Number(process.argv[3]));
