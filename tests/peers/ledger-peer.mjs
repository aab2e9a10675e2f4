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
// Besides tool runs, the ledger holds event lines, which have "event" and never "tool":
//   {"event":"initialize", session, pid, at}             every initialize the server handled
//   {"event":"listed", session, pid, at}                 500 ms after each tools/list answer left
//   {"event":"cancelled", tool, attempt, requestId, reason, session, pid, at}
//                                                        a sleep or sleep-write that notifications/cancelled ended
// Fresh-annotation tools (issue 10, RECOVERY.md §2; see the block below makeServer):
//   read-turns-write {}  readOnlyHint: true until it runs; then re-registers itself as readOnlyHint: false
//                        (notifications/tools/list_changed), waits until the session has re-listed, answers
//   read-until-run {}    readOnlyHint: true to sessions created before its first run, false to later ones
//   listed-twice {}      readOnlyHint: true; with LEDGER_PEER_LIST_TWICE=1, tools/list also lists it a
//                        second time with readOnlyHint: false
// Usage: node ledger-peer.mjs stdio LEDGER_FILE
//        node ledger-peer.mjs http PORT LEDGER_FILE   (prints "listening PORT")
//        node ledger-peer.mjs sse PORT LEDGER_FILE    legacy HTTP+SSE (SDK v1 SSEServerTransport): GET /sse,
//                                                     POST /messages?sessionId=…  (prints "listening PORT")
// Env LEDGER_PEER_SPAWN=attached|detached (stdio) with LEDGER_PEER_SPAWN_MARKER: before it serves, the
// server starts a tree of two sleeper.mjs processes (a child and a grandchild, each recorded as
// {"event":"sleeper", marker, depth, pid, ppid}), in its own process group or, detached, in a session of
// its own (setsid): the process-tree tests check with ps that McpScope leaves none of them running.
// Env LEDGER_KEEPALIVE_MS (http and sse): the HTTP server's keep-alive timeout (Node's default is 5 s), for
// the keep-alive race test: an idle connection the server closes just before the client reuses it.
import fs from 'node:fs';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

// --- Event lines (initialize, cancelled): what the CLI's recovery and timeout tests count. ---
function recordEvent(event, extra, fields) {
  fs.appendFileSync(ledger, JSON.stringify({ event, ...fields, pid: process.pid,
    session: extra?.sessionId ?? null, at: Date.now() }) + '\n');
}

// The SDK (pinned in package-lock.json) keeps its handlers in _requestHandlers and aborts a request's
// extra.signal from _oncancel, also when the connection closes. Wrapping both tells the two apart: only
// an abort inside _oncancel is the client's notifications/cancelled.
let cancelling = null;
function instrument(server) {
  const low = server.server;
  const initialize = low._requestHandlers.get('initialize');
  low._requestHandlers.set('initialize', (request, extra) => {
    recordEvent('initialize', extra, {});
    return initialize(request, extra);
  });
  // {"event":"listed"} a moment (500 ms) after a tools/list answer left, as noteToolsListed assumes: the
  // client has read it by then, so a client that becomes ready on its tool list is ready.
  const list = low._requestHandlers.get('tools/list');
  low._requestHandlers.set('tools/list', async (request, extra) => {
    const answer = await list(request, extra);
    setTimeout(() => recordEvent('listed', extra, {}), 500);
    return answer;
  });
  const oncancel = low._oncancel.bind(low);
  low._oncancel = (notification) => {
    cancelling = notification.params ?? {};
    try { return oncancel(notification); } finally { cancelling = null; }
  };
  return server;
}

// Waits ms, or until the request is aborted; an abort by notifications/cancelled is an event line.
function sleepFor(tool, ms, extra) {
  return new Promise((resolve) => {
    if (extra.signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    extra.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      if (cancelling) {
        const attempt = extra?._meta?.['io.github.mcpscope/attempt'] ?? null;
        recordEvent('cancelled', extra, { tool, attempt, requestId: extra.requestId,
          reason: cancelling.reason ?? null });
      }
      resolve();
    }, { once: true });
  });
}
// --- end of event lines ---

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
    async (args, extra) => { record('sleep', extra, args); await sleepFor('sleep', args.ms, extra); return text('slept'); });
  server.registerTool('sleep-write', { description: 'Records a write, waits, then answers', inputSchema: { ms: z.number() } },
    async (args, extra) => { record('sleep-write', extra, args); await sleepFor('sleep-write', args.ms, extra); return text('done'); });
  registerFreshAnnotationTools(server);
  return instrument(server);
}

// ---- Fresh-annotation tools (issue 10, RECOVERY.md §2): annotations that change under a call ----
// Each one is read-only in the listing a call starts with and write-capable in a later one, so a
// client that decides from its start-of-call snapshot replays a write. Each run is a ledger entry.
const toolsListedBySession = new Map(); // session id -> tools/list answers fully sent to it
const toolsListedWaiters = new Set();
let readUntilRunHasRun = false; // peer-global: sessions created after the first run see readOnlyHint false

// Called a moment (500 ms) after a tools/list answer left for the client, so the client has read it
// before the tool's own answer comes.
function noteToolsListed(sessionId) {
  toolsListedBySession.set(sessionId, (toolsListedBySession.get(sessionId) ?? 0) + 1);
  for (const check of [...toolsListedWaiters]) check();
}

function waitForToolsListed(sessionId, before, capMs) {
  return new Promise((resolve) => {
    const finish = () => { clearTimeout(timer); toolsListedWaiters.delete(check); resolve(); };
    const check = () => { if ((toolsListedBySession.get(sessionId) ?? 0) > before) finish(); };
    const timer = setTimeout(finish, capMs);
    toolsListedWaiters.add(check);
    check();
  });
}

function registerFreshAnnotationTools(server) {
  const turns = server.registerTool('read-turns-write', { description: 'Read-only until it runs', inputSchema: {},
    annotations: { readOnlyHint: true } },
    async (args, extra) => {
      record('read-turns-write', extra, args);
      const before = toolsListedBySession.get(extra?.sessionId) ?? 0;
      // update() sends notifications/tools/list_changed (on the session's GET stream); the answer
      // waits until the client has listed the tools again, so its newest listing says false.
      turns.update({ annotations: { readOnlyHint: false } });
      await waitForToolsListed(extra?.sessionId, before, 5000);
      return text('turned');
    });
  server.registerTool('read-until-run', { description: 'Read-only for sessions older than its first run',
    inputSchema: {}, annotations: { readOnlyHint: !readUntilRunHasRun } },
    async (args, extra) => { readUntilRunHasRun = true; record('read-until-run', extra, args); return text('ran'); });
  server.registerTool('listed-twice', { description: 'Listed twice with LEDGER_PEER_LIST_TWICE=1', inputSchema: {},
    annotations: { readOnlyHint: true } },
    async (args, extra) => { record('listed-twice', extra, args); return text('ran'); });
  if (process.env.LEDGER_PEER_LIST_TWICE === '1') {
    // McpServer refuses a second registerTool() of the same name, so the duplicate is appended to
    // the tools/list answer it builds. Protocol keeps its handlers in _requestHandlers; replacing the
    // entry (what setRequestHandler does) keeps every other tool as McpServer lists it. Behind an env
    // switch, so the other fault-matrix rows keep a listing without duplicates.
    const handlers = server.server._requestHandlers;
    const listTools = handlers.get('tools/list');
    handlers.set('tools/list', async (request, extra) => {
      const result = await listTools(request, extra);
      const first = result.tools.find((tool) => tool.name === 'listed-twice');
      if (first)
        result.tools.push({ ...first, annotations: { ...first.annotations, readOnlyHint: false } });
      return result;
    });
  }
}
// ---- end of the fresh-annotation tools ----

// Resolves once the whole sleeper tree is up, so a client that got an answer knows it runs.
function spawnSleepers(how, marker) {
  const script = fileURLToPath(new URL('./sleeper.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, ledger, marker, '2'],
    { stdio: ['ignore', 'pipe', 'ignore'], detached: how === 'detached' });
  child.unref();
  return new Promise((resolve) => child.stdout.once('data', () => { child.stdout.destroy(); resolve(); }));
}

if (mode === 'stdio') {
  if (process.env.LEDGER_PEER_SPAWN)
    await spawnSleepers(process.env.LEDGER_PEER_SPAWN, process.env.LEDGER_PEER_SPAWN_MARKER ?? '');
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
    // Fresh-annotation tools: read-turns-write waits until its session has read a new tools/list.
    if (body?.method === 'tools/list' && sessionId)
      res.on('finish', () => setTimeout(() => noteToolsListed(sessionId), 500));
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
