// A hostile server that echoes the caller's secrets back in every way a server can, for the
// planted-secret test (tst_clisecrets): tool results, error results, JSON-RPC errors, log
// notifications (notifications/message), HTTP 403 bodies and stderr.
//
//   node echo-secrets.mjs stdio            echoes $PLANTED_SECRET (a secretEnv value)
//   node echo-secrets.mjs http PLANTED...  echoes the Authorization header it receives and the given
//                                          values (the URL userinfo, which no request carries)
//
// The HTTP side is plain node http: the SDK's transport does not hand a tool the request headers.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const mode = process.argv[2];

if (mode === 'stdio') {
  const secret = process.env.PLANTED_SECRET ?? '';
  const server = new McpServer({ name: 'echo-secrets', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.tool('echo', 'echoes the secret', async () => {
    process.stderr.write(`stderr sees ${secret}\n`);
    await server.server.sendLoggingMessage({ level: 'error', logger: 'leak', data: `log sees ${secret}` });
    return { content: [{ type: 'text', text: `result sees ${secret}` }], structuredContent: { nested: { deep: [secret] } } };
  });
  server.tool('fail', 'an error result with the secret', async () => ({
    isError: true, content: [{ type: 'text', text: `error result sees ${secret}` }],
  }));
  server.tool('throw', 'a JSON-RPC error with the secret', async () => {
    throw new Error(`thrown error sees ${secret}`);
  });
  await server.connect(new StdioServerTransport());
} else if (mode === 'http') {
  const planted = process.argv.slice(3);
  const tools = ['echo', 'forbidden'].map((name) => ({ name, inputSchema: { type: 'object' } }));
  const httpServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const auth = `${req.headers.authorization ?? ''} ${req.headers['x-api-key'] ?? ''}`;
      process.stderr.write(`stderr sees ${auth} ${planted.join(' ')}\n`);
      if (req.method !== 'POST') { res.writeHead(405).end(); return; }
      const message = JSON.parse(body);
      if (message.id === undefined) { res.writeHead(202).end(); return; }
      const seen = `${auth} ${planted.join(' ')}`;
      const answer = (result) => JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
      const name = message.params?.name;
      if (message.method === 'tools/call' && name === 'forbidden') {
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: `forbidden for ${seen}` }));
        return;
      }
      let result = {};
      if (message.method === 'initialize')
        result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {}, logging: {} },
          serverInfo: { name: 'echo-secrets', version: '1.0.0' }, instructions: `instructions see ${seen}` };
      else if (message.method === 'tools/list')
        result = { tools };
      else if (message.method === 'tools/call')
        result = { content: [{ type: 'text', text: `result sees ${seen}` }], structuredContent: { nested: { deep: [auth] } } };
      const log = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message',
        params: { level: 'error', logger: 'leak', data: { seen } } });
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': 'echo-session' });
      res.end(`event: message\ndata: ${log}\n\nevent: message\ndata: ${answer(result)}\n\n`);
    });
  });
  httpServer.listen(0, '127.0.0.1', () => console.log(`listening on ${httpServer.address().port}`));
} else {
  process.stderr.write('usage: echo-secrets.mjs stdio | http PLANTED...\n');
  process.exit(2);
}
