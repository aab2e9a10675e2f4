// A stdio MCP server (official SDK) that answers a tool call with a line no JSON parser accepts, the
// way a server with a broken encoder or an unbounded recursive result does. No SDK server writes such
// bytes: the transport's send() is wrapped to corrupt one answer after the SDK has serialized it, so
// the line keeps the SDK's shape (result first, "jsonrpc" and "id" last).
//
//   node bad-answers.mjs LEDGER_FILE
//
// Tools (both write-capable: no readOnlyHint), each run recorded in LEDGER_FILE as a ledger-peer line:
//   answer-badly {how}   how = "utf8": the answer's text holds the bytes FF FE (invalid UTF-8)
//                        how = "deep": the answer holds an array nested 2000 levels deep
//   echo {message}       answers normally, so a test can show the session still works afterwards
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const ledger = process.argv[2];
if (!ledger) {
  console.error('usage: bad-answers.mjs LEDGER_FILE');
  process.exit(2);
}

const Marker = '@@BAD-BYTES@@';
const corrupt = new Map(); // request id -> how its answer is corrupted

function record(tool, extra, args) {
  const attempt = extra?._meta?.['io.github.mcpscope/attempt'] ?? null;
  fs.appendFileSync(ledger, JSON.stringify({ tool, args, attempt, pid: process.pid, session: null,
    requestId: extra.requestId, at: Date.now() }) + '\n');
}

const server = new McpServer({ name: 'bad-answers', version: '1.0.0' });
server.registerTool('answer-badly', { description: 'Answers with a line no JSON parser accepts',
  inputSchema: { how: z.enum(['utf8', 'deep']) } },
  async (args, extra) => {
    record('answer-badly', extra, args);
    corrupt.set(extra.requestId, args.how);
    return { content: [{ type: 'text', text: Marker }] };
  });
server.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } },
  async (args, extra) => {
    record('echo', extra, args);
    return { content: [{ type: 'text', text: `Echo: ${args.message}` }] };
  });

const transport = new StdioServerTransport();
const send = transport.send.bind(transport);
transport.send = (message) => {
  const how = 'id' in message && 'result' in message ? corrupt.get(message.id) : undefined;
  if (!how)
    return send(message);
  corrupt.delete(message.id);
  const [before, after] = JSON.stringify(message).split(`"${Marker}"`);
  const bad = how === 'utf8'
    ? Buffer.from([0x22, 0xff, 0xfe, 0x22]) // "\xff\xfe": a string of two bytes that are not UTF-8
    : Buffer.from('['.repeat(2000) + ']'.repeat(2000));
  const line = Buffer.concat([Buffer.from(before), bad, Buffer.from(after + '\n')]);
  return new Promise((resolve) => process.stdout.write(line, () => resolve()));
};
await server.connect(transport);
console.error('bad-answers: ready');
