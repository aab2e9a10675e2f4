// The modern-era (2026-07-28, sessionless) ledger peer: an official SDK v2 server
// (@modelcontextprotocol/server 2.3.1) that refuses the legacy era and records every tool run in a
// ledger file, one JSON line per run, as ledger-peer.mjs does, so tests count what the SERVER ran.
//
// Tools (ledger-peer.mjs's five, same line format {tool, args, attempt, pid, at}; attempt is
// _meta io.github.mcpscope/attempt):
//   write {note}        write-capable: appends to the ledger, returns the number of writes
//   read {}             readOnlyHint: returns the number of writes
//   set {key, value}    idempotentHint (not read-only): returns "ok"
//   sleep {ms}          readOnlyHint: waits (or until cancelled), returns "slept"
//   sleep-write {ms}    write-capable: records the run, waits, returns "done"
// MRTR tools (multi-round-trip; each round is a {"event":"round", tool, round, state} line):
//   confirm-write {note} write-capable. Round 1 answers input_required with a form elicitation
//                        "confirm" (boolean) and requestState "confirm-write:1". The next round records
//                        a write line (tool "confirm-write") only when confirm is true, answers the
//                        number of writes; else answers "not confirmed" and records nothing.
//   ask-roots {}         readOnlyHint. Round 1 asks roots/list (key "roots"); then answers the root
//                        URIs joined by ",", or "no roots".
//   ask-sample {prompt}  readOnlyHint. Round 1 asks sampling/createMessage (key "sample"); then answers
//                        "sampled: TEXT" with the text the client's model gave.
//   two-rounds {}        readOnlyHint. Round 1: elicitation "first" (string answer), requestState "s1";
//                        round 2: elicitation "second", requestState "s2:ANSWER1"; round 3 answers
//                        "done s2:ANSWER1 ANSWER2". A round whose state does not fit answers isError.
// Header tools:
//   region-echo {region} readOnlyHint; region is annotated x-mcp-header "Region". Answers
//                        "region=ARG header=VALUE" with the raw Mcp-Param-Region header (HTTP) or "none".
//   bad-header-tool {v}  its x-mcp-header annotation is invalid (on an object property): a client
//                        must leave it out of tools/list. Calling it anyway records nothing.
// Resources: ledger://counter (subscribable): the number of writes.
//   touch {uri}          readOnlyHint: publishes notifications/resources/updated {uri} and
//                        notifications/tools/list_changed to open subscriptions/listen streams.
// Tasks extension (io.modelcontextprotocol/tasks, SEP-2663; the server hands back a task handle only to a
// request whose _meta clientCapabilities declare the extension; tasks/get, tasks/update, tasks/cancel):
//   task-write {note, ms} write-capable. Declared: answers a task handle (resultType "task"); after ms (200)
//                        records a write line (tool "task-write") and completes with the number of writes.
//                        Not declared: records and answers at once, like write.
//   task-confirm {note}  write-capable. Declared: a task that is input_required with inputRequests
//                        {confirm: form elicitation, boolean}; a tasks/update accepting confirm true records
//                        a write (tool "task-confirm") and completes; anything else completes "not confirmed".
//                        Not declared: an isError result naming the extension (it cannot run without a task).
//   task-fail {}         Declared: a task that fails with the JSON-RPC error -32603 "the job crashed".
//   task-slow {ms}       readOnlyHint. Declared: a task that works for ms (60000), then completes "slow done";
//                        tasks/cancel ends it cancelled.
//   Event lines {"event":"task-update", taskId, keys} and {"event":"task-cancel", taskId}.
// Event lines: {"event":"discover", transport} for each server/discover, {"event":"round", ...}.
// Usage: node modern-ledger-peer.mjs stdio LEDGER_FILE
//        node modern-ledger-peer.mjs http PORT LEDGER_FILE   (127.0.0.1; prints "listening PORT"; 0 = any)
// Legacy openings (initialize, claim-less requests) get -32022 with data.supported ["2026-07-28"].
import { McpServer, createMcpHandler, inputRequired, inputResponse, acceptedContent, fromJsonSchema,
  ProtocolError } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { makeLedger, text, serveHttp } from './modern-common.mjs';

const mode = process.argv[2];
const ledgerFile = mode === 'http' ? process.argv[4] : process.argv[3];
if (!ledgerFile || (mode !== 'stdio' && mode !== 'http')) {
  console.error('usage: modern-ledger-peer.mjs stdio LEDGER | http PORT LEDGER');
  process.exit(2);
}
const ledger = makeLedger(ledgerFile);
const writes = () => ledger.entries().filter((e) => !e.event && ['write', 'confirm-write', 'task-write', 'task-confirm'].includes(e.tool)).length;
const RO = { readOnlyHint: true };
const instances = new Set(); // stdio: the pinned instance, for touch's notifications
let httpHandler = null;

function sleepFor(ms, ctx) {
  return new Promise((resolve) => {
    const signal = ctx.mcpReq.signal;
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

function round(tool, ctx, n) {
  ledger.event('round', { tool, round: n, state: ctx.mcpReq.requestState() ?? null,
    inputResponses: Object.keys(ctx.mcpReq.inputResponses ?? {}) });
}

const elicitString = (message) => inputRequired.elicit({ message,
  requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } });

// The tasks of the extension live in the module: every HTTP request gets a server instance of its own.
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const tasks = new Map();
let nextTask = 1;
const declaresTasks = (ctx) => {
  const key = 'io.modelcontextprotocol/clientCapabilities';
  const caps = ctx.mcpReq.envelope?.[key] ?? ctx.mcpReq.envelope?.clientCapabilities ?? ctx.mcpReq._meta?.[key];
  return Boolean(caps?.extensions?.[TASKS_EXT]);
};
function newTask(fields = {}) {
  const now = new Date().toISOString();
  const task = { taskId: `task-${process.pid}-${nextTask++}`, status: 'working', createdAt: now, lastUpdatedAt: now,
    ttlMs: 60000, pollIntervalMs: 100, ...fields };
  tasks.set(task.taskId, task);
  return task;
}
function settle(task, fields) {
  if (['completed', 'failed', 'cancelled'].includes(task.status)) return;
  Object.assign(task, fields, { lastUpdatedAt: new Date().toISOString() });
  if (task.status !== 'input_required') delete task.inputRequests;
}
// What the wire carries of a task: the Task shape, with inputRequests, result or error for its status.
const taskView = ({ onInput, timer, ...task }) => task;
// The handle is the seed state: what a task asks for comes with tasks/get (SEP-2663).
const handle = (task) => { const { inputRequests, ...seed } = taskView(task); return { resultType: 'task', ...seed }; };
function taskOf(params) {
  const task = tasks.get(params.taskId);
  if (!task) throw new ProtocolError(-32602, `unknown task ${params.taskId}`);
  return task;
}

function registerTasks(server) {
  server.registerTool('task-write', { description: 'Writes in a task (tasks extension)', inputSchema: z.object({ note: z.string().optional(), ms: z.number().optional() }) },
    async (args, ctx) => {
      if (!declaresTasks(ctx)) { ledger.record('task-write', ctx, args); return text(writes()); }
      const task = newTask();
      task.timer = setTimeout(() => { ledger.record('task-write', ctx, args); settle(task, { status: 'completed', result: text(writes()) }); }, args.ms ?? 200);
      return handle(task);
    });
  server.registerTool('task-confirm', { description: 'Writes after a confirmation asked by the task', inputSchema: z.object({ note: z.string().optional() }) },
    async (args, ctx) => {
      // The SDK turns a thrown -32021 into an isError result inside a tool; the text says the same.
      if (!declaresTasks(ctx)) return { isError: true, content: [{ type: 'text', text: `task-confirm needs the ${TASKS_EXT} extension` }] };
      const task = newTask({ status: 'input_required', statusMessage: 'waiting for a confirmation', inputRequests: { confirm: inputRequired.elicit({
        message: `Write "${args.note ?? ''}" to the ledger?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm' } }, required: ['confirm'] } }) } });
      task.onInput = (responses) => {
        if (!responses.confirm) return;
        if (acceptedContent(responses, 'confirm')?.confirm === true) {
          ledger.record('task-confirm', ctx, args);
          settle(task, { status: 'completed', statusMessage: 'confirmed', result: text(writes()) });
        } else {
          settle(task, { status: 'completed', statusMessage: 'not confirmed', result: text('not confirmed') });
        }
      };
      return handle(task);
    });
  server.registerTool('task-fail', { description: 'A task that fails', inputSchema: z.object({}) },
    async (args, ctx) => {
      if (!declaresTasks(ctx)) return { isError: true, content: [{ type: 'text', text: 'the job crashed' }] };
      const task = newTask();
      task.timer = setTimeout(() => settle(task, { status: 'failed', statusMessage: 'crashed', error: { code: -32603, message: 'the job crashed' } }), 100);
      return handle(task);
    });
  server.registerTool('task-slow', { description: 'A slow task (cancel it)', inputSchema: z.object({ ms: z.number().optional() }), annotations: RO },
    async (args, ctx) => {
      if (!declaresTasks(ctx)) return text('slow done');
      const task = newTask({ statusMessage: 'working slowly' });
      task.timer = setTimeout(() => { ledger.record('task-slow', ctx, args); settle(task, { status: 'completed', result: text('slow done') }); }, args.ms ?? 60000);
      return handle(task);
    });
  const byId = { params: z.object({ taskId: z.string() }).passthrough() };
  server.server.setRequestHandler('tasks/get', byId, async (params) => ({ resultType: 'complete', ...taskView(taskOf(params)) }));
  server.server.setRequestHandler('tasks/update', byId, async (params, ctx) => {
    const task = taskOf(params);
    // The SDK lifts inputResponses out of params (its MRTR seam), for every method.
    const responses = params.inputResponses ?? ctx.mcpReq.inputResponses ?? {};
    ledger.event('task-update', { taskId: task.taskId, keys: Object.keys(responses) });
    if (task.status === 'input_required' && task.onInput) task.onInput(responses);
    return { resultType: 'complete' };
  });
  server.server.setRequestHandler('tasks/cancel', byId, async (params) => {
    const task = taskOf(params);
    ledger.event('task-cancel', { taskId: task.taskId });
    clearTimeout(task.timer);
    settle(task, { status: 'cancelled', statusMessage: 'cancelled by the client' });
    return { resultType: 'complete' };
  });
}

function registerTools(server) {
  server.registerTool('write', { description: 'Appends to the ledger', inputSchema: z.object({ note: z.string().optional() }) },
    async (args, ctx) => { ledger.record('write', ctx, args); return text(writes()); });
  server.registerTool('read', { description: 'Counts the writes', inputSchema: z.object({}), annotations: RO },
    async (args, ctx) => { ledger.record('read', ctx, args); return text(writes()); });
  server.registerTool('set', { description: 'Sets a key (idempotent)', inputSchema: z.object({ key: z.string(), value: z.string() }),
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false } },
    async (args, ctx) => { ledger.record('set', ctx, args); return text('ok'); });
  server.registerTool('sleep', { description: 'Waits, then answers', inputSchema: z.object({ ms: z.number() }), annotations: RO },
    async (args, ctx) => { ledger.record('sleep', ctx, args); await sleepFor(args.ms, ctx); return text('slept'); });
  server.registerTool('sleep-write', { description: 'Records a write, waits, then answers', inputSchema: z.object({ ms: z.number() }) },
    async (args, ctx) => { ledger.record('sleep-write', ctx, args); await sleepFor(args.ms, ctx); return text('done'); });

  server.registerTool('confirm-write', { description: 'Writes after a confirmation (MRTR)', inputSchema: z.object({ note: z.string().optional() }) },
    async (args, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (state !== 'confirm-write:1') {
        round('confirm-write', ctx, 1);
        return inputRequired({ requestState: 'confirm-write:1', inputRequests: { confirm: inputRequired.elicit({
          message: `Write "${args.note ?? ''}" to the ledger?`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm' } }, required: ['confirm'] } }) } });
      }
      round('confirm-write', ctx, 2);
      if (acceptedContent(ctx.mcpReq.inputResponses, 'confirm')?.confirm !== true) return text('not confirmed');
      ledger.record('confirm-write', ctx, args);
      return text(writes());
    });
  server.registerTool('ask-roots', { description: 'Lists the client roots (MRTR)', inputSchema: z.object({}), annotations: RO },
    async (args, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (view.kind !== 'roots') {
        round('ask-roots', ctx, 1);
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      }
      round('ask-roots', ctx, 2);
      return text(view.roots.length ? view.roots.map((r) => r.uri).join(',') : 'no roots');
    });
  server.registerTool('ask-sample', { description: 'Asks the client model (MRTR)', inputSchema: z.object({ prompt: z.string() }), annotations: RO },
    async (args, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (view.kind !== 'sampling') {
        round('ask-sample', ctx, 1);
        return inputRequired({ inputRequests: { sample: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 }) } });
      }
      round('ask-sample', ctx, 2);
      const c = view.result.content;
      return text(`sampled: ${Array.isArray(c) ? c.map((b) => b.text).join('') : c?.text}`);
    });
  server.registerTool('two-rounds', { description: 'Two MRTR rounds, state echoed', inputSchema: z.object({}), annotations: RO },
    async (args, ctx) => {
      const state = ctx.mcpReq.requestState();
      const answer = (key) => acceptedContent(ctx.mcpReq.inputResponses, key)?.answer;
      if (state === undefined) {
        round('two-rounds', ctx, 1);
        return inputRequired({ requestState: 's1', inputRequests: { first: elicitString('First answer?') } });
      }
      if (state === 's1' && answer('first') !== undefined) {
        round('two-rounds', ctx, 2);
        return inputRequired({ requestState: `s2:${answer('first')}`, inputRequests: { second: elicitString('Second answer?') } });
      }
      if (state.startsWith('s2:') && answer('second') !== undefined) {
        round('two-rounds', ctx, 3);
        return text(`done ${state} ${answer('second')}`);
      }
      round('two-rounds', ctx, 0);
      return { isError: true, content: [{ type: 'text', text: `unexpected requestState ${JSON.stringify(state)}` }] };
    });

  server.registerTool('region-echo', { description: 'Echoes the Mcp-Param-Region header', annotations: RO,
    inputSchema: fromJsonSchema({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] }) },
    async (args, ctx) => {
      ledger.record('region-echo', ctx, args);
      const header = ctx.http?.req?.headers?.get('mcp-param-region');
      return text(`region=${args.region} header=${header ?? 'none'}`);
    });
  server.registerTool('bad-header-tool', { description: 'Invalid x-mcp-header annotation (object property)',
    inputSchema: fromJsonSchema({ type: 'object', properties: { v: { type: 'object', 'x-mcp-header': 'Bad' } } }) },
    async (args, ctx) => { ledger.record('bad-header-tool', ctx, args); return text('bad-header-tool ran'); });

  server.registerResource('counter', 'ledger://counter', { description: 'The number of writes', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(writes()) }] }));
  server.registerTool('touch', { description: 'Publishes resources/updated and tools/list_changed', inputSchema: z.object({ uri: z.string() }), annotations: RO },
    async (args, ctx) => {
      ledger.record('touch', ctx, args);
      if (httpHandler) { httpHandler.notify.resourceUpdated(args.uri); httpHandler.notify.toolsChanged(); }
      for (const s of instances) { await s.server.sendResourceUpdated({ uri: args.uri }); s.sendToolListChanged(); }
      return text('touched');
    });
}

function factory() {
  const server = new McpServer({ name: 'modern-ledger-peer', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true },
      extensions: { [TASKS_EXT]: {} } },
      instructions: 'McpScope modern ledger peer' });
  registerTools(server);
  registerTasks(server);
  if (mode === 'stdio') instances.add(server);
  return server;
}

const noteDiscover = (transport) => (msg) => {
  if (msg && msg.method === 'server/discover') ledger.event('discover', { transport });
};

if (mode === 'stdio') {
  const transport = new StdioServerTransport();
  // The entry sets onmessage; wrapping the setter sees every inbound message first.
  let inner;
  const seen = noteDiscover('stdio');
  Object.defineProperty(transport, 'onmessage', { configurable: true,
    get: () => inner, set: (fn) => { inner = fn && ((m, x) => { seen(m); return fn(m, x); }); } });
  serveStdio(factory, { legacy: 'reject', transport });
} else {
  httpHandler = createMcpHandler(factory, { legacy: 'reject' });
  serveHttp(httpHandler, Number(process.argv[3]), noteDiscover('http'));
}
