// Self-check of the SDK v2 peers (modern-ledger-peer.mjs, dual-era-peer.mjs), driven by the official
// SDK v2 client (@modelcontextprotocol/client 2.3.1) in the modern and legacy eras over stdio and
// Streamable HTTP. Exits 0 when every tool answers as the peers' header comments document, and each
// ledger holds exactly the runs this script caused. Usage: node check-modern-peers.mjs  (< 20 s)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpscope-modern-'));
const children = [];
const t0 = Date.now();
let failures = 0;
const check = (what, ok, got) => {
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${String(Date.now() - t0).padStart(5)}ms ${what}${ok ? '' : `: got ${JSON.stringify(got)}`}`);
};
const lines = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const textOf = (r) => r?.content?.map((c) => c.text).join('');

function startHttp(script, ledger) {
  const child = spawn(process.execPath, [path.join(here, script), 'http', '0', ledger], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`); });
    child.on('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

async function connect(script, transportKind, era, ledger) {
  const client = new Client({ name: 'check-modern-peers', version: '1.0.0' }, {
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
    versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy', probe: { timeoutMs: 5000 } } });
  client.setRequestHandler('elicitation/create', async (req) => {
    const msg = req.params.message;
    if (msg.startsWith('Write')) return { action: 'accept', content: { confirm: true } };
    return { action: 'accept', content: { answer: msg.startsWith('First') ? 'A' : 'B' } };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///tmp/root-a', name: 'a' }] }));
  client.setRequestHandler('sampling/createMessage', async () =>
    ({ role: 'assistant', model: 'check', content: { type: 'text', text: 'pong' } }));
  const transport = transportKind === 'stdio'
    ? new StdioClientTransport({ command: process.execPath, args: [path.join(here, script), 'stdio', ledger], stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(await startHttp(script, ledger)));
  await client.connect(transport);
  return client;
}

async function checkModern(transportKind) {
  const tag = `modern-ledger-peer ${transportKind}`;
  const ledger = path.join(dir, `modern-${transportKind}.jsonl`);
  const client = await connect('modern-ledger-peer.mjs', transportKind, 'modern', ledger);
  check(`${tag}: era modern`, client.getProtocolEra() === 'modern', client.getProtocolEra());
  check(`${tag}: discover ttlMs`, client.getDiscoverResult()?.ttlMs === 0, client.getDiscoverResult());
  const names = (await client.listTools()).tools.map((t) => t.name);
  check(`${tag}: tools/list has region-echo`, names.includes('region-echo'), names);
  // The SDK client drops tools with invalid x-mcp-header annotations on Streamable HTTP only.
  check(`${tag}: tools/list ${transportKind === 'http' ? 'leaves out' : 'keeps'} bad-header-tool`,
    names.includes('bad-header-tool') === (transportKind === 'stdio'), names);
  const call = async (name, args) => textOf(await client.callTool({ name, arguments: args }));
  const expect = async (name, args, want) => { const got = await call(name, args); check(`${tag}: ${name}`, got === want, got); };
  await expect('write', { note: 'n' }, '1');
  await expect('read', {}, '1');
  await expect('set', { key: 'k', value: 'v' }, 'ok');
  await expect('sleep', { ms: 10 }, 'slept');
  await expect('sleep-write', { ms: 10 }, 'done');
  await expect('confirm-write', { note: 'c' }, '2');
  await expect('ask-roots', {}, 'file:///tmp/root-a');
  await expect('ask-sample', { prompt: 'ping' }, 'sampled: pong');
  await expect('two-rounds', {}, 'done s2:A B');
  const header = transportKind === 'http';
  await expect('region-echo', { region: 'eu-west' }, `region=eu-west header=${header ? 'eu-west' : 'none'}`);
  await expect('region-echo', { region: 'é ü' }, `region=é ü header=${header ? '=?base64?w6kgw7w=?=' : 'none'}`);
  const seen = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => seen.push(`updated ${n.params.uri}`));
  client.setNotificationHandler('notifications/tools/list_changed', () => seen.push('tools'));
  const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['ledger://counter'] });
  check(`${tag}: listen acknowledged`, sub.honoredFilter.resourceSubscriptions?.[0] === 'ledger://counter', sub.honoredFilter);
  await expect('touch', { uri: 'ledger://counter' }, 'touched');
  for (let i = 0; i < 50 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  check(`${tag}: listen delivered`, seen.includes('updated ledger://counter') && seen.includes('tools'), seen);
  await sub.close();
  const counter = await client.readResource({ uri: 'ledger://counter' });
  check(`${tag}: ledger://counter`, counter.contents[0].text === '2', counter.contents);
  await client.close();
  const l = lines(ledger);
  const runs = (tool) => l.filter((e) => !e.event && e.tool === tool).length;
  check(`${tag}: ledger has 1 write, 1 confirm-write, 1 sleep-write`, runs('write') === 1 && runs('confirm-write') === 1 && runs('sleep-write') === 1, l);
  const rounds = l.filter((e) => e.event === 'round' && e.tool === 'two-rounds').map((e) => e.round);
  check(`${tag}: two-rounds rounds 1,2,3`, rounds.join() === '1,2,3', rounds);
  check(`${tag}: discover events`, l.some((e) => e.event === 'discover'), l.filter((e) => e.event));
  // A legacy-only client cannot open the modern-only peer.
  const legacyLedger = path.join(dir, `modern-${transportKind}-legacy.jsonl`);
  let refused = false;
  try { const c = await connect('modern-ledger-peer.mjs', transportKind, 'legacy', legacyLedger); await c.close(); }
  catch (e) { refused = /-32022|nsupported protocol version/.test(String(e?.message ?? e)); }
  check(`${tag}: legacy initialize refused with -32022`, refused, refused);
}

async function checkDual(transportKind, era) {
  const tag = `dual-era-peer ${transportKind} ${era}`;
  const ledger = path.join(dir, `dual-${transportKind}-${era}.jsonl`);
  const client = await connect('dual-era-peer.mjs', transportKind, era, ledger);
  check(`${tag}: era`, client.getProtocolEra() === era, client.getProtocolEra());
  check(`${tag}: write`, textOf(await client.callTool({ name: 'write', arguments: {} })) === '1', null);
  check(`${tag}: read`, textOf(await client.callTool({ name: 'read', arguments: {} })) === '1', null);
  await client.close();
  const l = lines(ledger);
  const calls = l.filter((e) => e.event === 'request' && e.method === 'tools/call');
  check(`${tag}: ledger requests in era ${era}`, calls.length === 2 && calls.every((e) => e.era === era), l);
  check(`${tag}: ledger runs`, l.filter((e) => e.tool === 'write' && e.era === era).length === 1, l);
}

const timer = setTimeout(() => { console.log('FAIL timeout (20 s)'); process.exit(1); }, 20000);
try {
  await Promise.all([checkModern('stdio'), checkModern('http')]);
  await Promise.all([checkDual('stdio', 'modern'), checkDual('stdio', 'legacy'), checkDual('http', 'modern'), checkDual('http', 'legacy')]);
} catch (e) {
  failures++;
  console.log(`FAIL ${e?.stack ?? e}`);
}
clearTimeout(timer);
for (const c of children) c.kill();
fs.rmSync(dir, { recursive: true, force: true });
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
