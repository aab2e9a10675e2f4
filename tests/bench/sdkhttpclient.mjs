// The official TypeScript SDK client in the Streamable HTTP benchmarks: Client +
// StreamableHTTPClientTransport on a running server, client.callTool('echo') measured sequentially
// (one call in flight) and concurrently (<concurrency> calls in flight at all times), and on request
// a burst of concurrent 'sleep' calls timed as a whole (16 calls of 1 s each should take about 1 s).
// Run it with the pinned Node 22 (tests/peers/node_modules/node/bin/node), never the system node.
//
// Usage: node sdkhttpclient.mjs <url> <calls> <warm-up calls> <concurrency> [<peers dir>]
//                               [--echo-text <text>] [--sleep <calls>:<ms>]
// --echo-text: what the echo of "hello" reads (server-everything: "Echo: hello", the default; the
// project's httpechopeer: "hello"). A concurrency of 0 skips the concurrent mode.
// Prints one JSON line on stdout:
//   {"client":"sdk","sdkVersion":…,"node":…,"sequential":{…},"concurrent":{…},"sleep":{…}}
// where each mode is {"calls":N,"seconds":S,"callsPerSec":R,"p50Us":X,"p99Us":Y,"cpuUsPerCall":C}
// (C: the process's CPU time, all threads, over the timed calls; concurrent is absent at concurrency
// 0), and sleep, with --sleep only, is {"calls":N,"ms":M,"wallMs":W,"maxCallMs":C}.
//
// ESM ignores NODE_PATH and this file does not live under tests/peers, so the SDK is imported
// by absolute path from the peers' node_modules (the pinned install), not by bare specifier.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const usage = 'usage: sdkhttpclient.mjs <url> <calls> <warm-up calls> <concurrency> [<peers dir>] '
    + '[--echo-text <text>] [--sleep <calls>:<ms>]';
let parsed;
try {
    parsed = parseArgs({
        allowPositionals: true,
        options: { 'echo-text': { type: 'string', default: 'Echo: hello' }, sleep: { type: 'string' } },
    });
} catch (error) {
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
}
const [url, callsArg, warmupArg, concurrencyArg, peersArg] = parsed.positionals;
const sleepMatch = parsed.values.sleep === undefined ? null : /^(\d+):(\d+)$/.exec(parsed.values.sleep);
if (!url || !callsArg || !warmupArg || !concurrencyArg || (parsed.values.sleep !== undefined && !sleepMatch)) {
    console.error(usage);
    process.exit(2);
}
const calls = Number.parseInt(callsArg, 10);
const warmup = Number.parseInt(warmupArg, 10);
const concurrency = Math.max(0, Number.parseInt(concurrencyArg, 10));
const echoText = parsed.values['echo-text'];
const sleepCalls = sleepMatch ? Number.parseInt(sleepMatch[1], 10) : 0;
const sleepMs = sleepMatch ? Number.parseInt(sleepMatch[2], 10) : 0;
const peersDir = peersArg ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../peers');
const sdkDir = path.join(peersDir, 'node_modules/@modelcontextprotocol/sdk');
const sdkModule = (file) => import(pathToFileURL(path.join(sdkDir, 'dist/esm', file)).href);

const { Client } = await sdkModule('client/index.js');
const { StreamableHTTPClientTransport } = await sdkModule('client/streamableHttp.js');
const sdkVersion = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8')).version;

// Undici's fetch() adds an abort listener per request to the transport's one AbortSignal and drops
// it only when the request is garbage-collected, so Node warns (MaxListenersExceededWarning) over
// and over during a run. Count those warnings and say so once instead; print every other warning.
let listenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning')
        ++listenerWarnings;
    else
        console.error(`sdkhttpclient: ${warning.name}: ${warning.message}`);
});

function fail(message) {
    console.error(`sdkhttpclient: ${message}`);
    process.exit(1);
}

const client = new Client({ name: 'mcpscope-bench-sdk', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const { tools } = await client.listTools();
if (!tools.some((tool) => tool.name === 'echo'))
    fail('the server did not list a tool "echo"');
if (sleepCalls > 0 && !tools.some((tool) => tool.name === 'sleep'))
    fail('the server did not list a tool "sleep"');

let callIndex = 0;
async function echo() {
    const index = callIndex++;
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    if (result.isError || result.content?.[0]?.text !== echoText)
        fail(`call ${index} did not echo "hello": ${JSON.stringify(result)}`);
}

// sleepCalls calls of sleep {ms: sleepMs} started at once on the one session, timed as a whole.
async function sleepBurst() {
    const start = performance.now();
    const durations = await Promise.all(Array.from({ length: sleepCalls }, async (_, index) => {
        const t0 = performance.now();
        const result = await client.callTool({ name: 'sleep', arguments: { ms: sleepMs } });
        if (result.isError)
            fail(`sleep call ${index} failed: ${JSON.stringify(result)}`);
        return performance.now() - t0;
    }));
    return { calls: sleepCalls, ms: sleepMs, wallMs: performance.now() - start, maxCallMs: Math.max(...durations) };
}

// Runs count calls with width of them in flight at all times; returns each call's latency in µs.
async function run(count, width) {
    const latencies = [];
    let started = 0;
    async function worker() {
        while (started < count) {
            ++started;
            const t0 = performance.now();
            await echo();
            latencies.push((performance.now() - t0) * 1000);
        }
    }
    await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
    return latencies;
}

function percentile(sorted, p) {
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(width) {
    await run(warmup, width);
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const latencies = await run(calls, width);
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    latencies.sort((a, b) => a - b);
    return { calls, seconds, callsPerSec: calls / seconds, p50Us: percentile(latencies, 50), p99Us: percentile(latencies, 99),
        cpuUsPerCall: (cpu.user + cpu.system) / calls };
}

const sequential = await measure(1);
const concurrent = concurrency > 0 ? await measure(concurrency) : undefined;
const sleep = sleepCalls > 0 ? await sleepBurst() : undefined;
await transport.terminateSession().catch(() => {});
await client.close();
if (listenerWarnings > 0)
    console.error(`sdkhttpclient: note: Node warned ${listenerWarnings} times of too many abort listeners on one AbortSignal`);

console.log(JSON.stringify({ client: 'sdk', sdkVersion, node: process.versions.node, concurrency, sequential, concurrent, sleep }));
