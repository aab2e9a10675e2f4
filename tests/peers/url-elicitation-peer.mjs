// A stdio server built on the SDK whose one tool, connect-account, asks the client for a URL-mode
// elicitation and, once the client accepts, tells it the out-of-band flow is done with
// notifications/elicitation/complete (server-everything sends no such notification). tst_serverrequests.
//
//   node url-elicitation-peer.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new McpServer({ name: 'url-elicitation-peer', version: '1.0.0' });
server.registerTool('connect-account', { description: 'Asks the user to visit a URL, then completes it' },
  async (extra) => {
    const elicitationId = 'connect-1';
    const answer = await server.server.request({
      method: 'elicitation/create',
      params: { mode: 'url', url: 'https://accounts.example.com/connect?flow=1', message: 'Connect your account',
        elicitationId },
    }, ElicitResultSchema);
    if (answer.action === 'accept') {
      // The page "finished": the server says so on its own, a moment later.
      setTimeout(() => { server.server.createElicitationCompletionNotifier(elicitationId)().catch(() => {}); }, 200);
    }
    return { content: [{ type: 'text', text: `answer: ${answer.action}` }] };
  });
await server.connect(new StdioServerTransport());
