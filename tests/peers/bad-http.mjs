// Wire behaviours no real MCP server produces on purpose, for the transport's bad-input tests.
// This is a deliberate mock: each mode answers every request after initialize in one broken way.
// Usage: node bad-http.mjs PORT MODE, MODE one of
//   invalid-sse-json   the tools/call answer is an SSE event whose data is not JSON
//   never-answers      the tools/call SSE stream stays open with no response (only comments)
//   html-500           the tools/call answer is 500 with an HTML page
//   huge               the tools/call answer is a 70 MB JSON response
import http from 'node:http';

const port = Number(process.argv[2] || 0);
const mode = process.argv[3];

function initResult(id) {
  return { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} },
    serverInfo: { name: 'bad-http', version: '1.0.0' } } };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST') { res.writeHead(405).end(); return; }
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bad-session-1' });
      res.end(JSON.stringify(initResult(msg.id)));
      return;
    }
    if (msg.id === undefined) { res.writeHead(202).end(); return; }
    if (msg.method === 'tools/list') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [
        { name: 'echo', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } }));
      return;
    }
    switch (mode) {
    case 'invalid-sse-json':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${msg.id},"result":{oops\n\n`);
      return;
    case 'never-answers':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': waiting\n\n');
      setInterval(() => res.write(': still waiting\n\n'), 500);
      return;
    case 'html-500':
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Internal Server Error</h1><p>upstream exploded</p></body></html>');
      return;
    case 'huge': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = 'x'.repeat(70 * 1024 * 1024);
      res.end(`{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"${text}"}]}}`);
      return;
    }
    default:
      res.writeHead(500).end('unknown mode');
    }
  });
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
