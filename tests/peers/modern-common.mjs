// Shared plumbing of the SDK v2 (2026-07-28) peers, modern-ledger-peer.mjs and dual-era-peer.mjs:
// the ledger file (one JSON line per tool run or event) and a node:http front for the SDK v2's
// web-standard createMcpHandler (the @modelcontextprotocol/node adapter is not pinned).
import fs from 'node:fs';
import http from 'node:http';

export function makeLedger(file) {
  const append = (obj) => fs.appendFileSync(file, JSON.stringify({ ...obj, pid: process.pid, at: Date.now() }) + '\n');
  return {
    // A tool run: {tool, args, attempt, pid, at}; attempt is _meta io.github.mcpscope/attempt.
    record(tool, ctx, args, extra = {}) {
      append({ tool, args, attempt: ctx?.mcpReq?._meta?.['io.github.mcpscope/attempt'] ?? null, ...extra });
    },
    event(event, fields) { append({ event, ...fields }); },
    entries() {
      if (!fs.existsSync(file)) return [];
      return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
  };
}

export const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });

// Serves handler.fetch on 127.0.0.1:port (0 = any) at every path; prints "listening PORT".
// onBody(method, body) sees each parsed POST body first (for event lines).
export function serveHttp(handler, port, onBody) {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    if (onBody && req.method === 'POST') {
      try { onBody(JSON.parse(body.toString('utf8')), req.headers); } catch { /* the SDK answers bad JSON */ }
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method, headers: req.headers, signal: abort.signal,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    let response;
    try {
      response = await handler.fetch(request);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch { /* client went away */ }
    res.end();
  });
  server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
  return server;
}
