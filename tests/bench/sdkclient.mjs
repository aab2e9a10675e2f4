// The official TypeScript SDK client in the stdio call-overhead benchmark: Client +
// StdioClientTransport on the echo peer, sequential client.callTool() round trips.
// Run it with the pinned Node 22 (tests/peers/node_modules/node/bin/node), never the system node.
//
// Usage: node sdkclient.mjs <echo-peer> <calls> <warm-up calls> [<peers dir>]
// Prints {"client":"sdk","sdkVersion":…,"calls":N,"usPerCall":X} on stdout.
//
// ESM ignores NODE_PATH and this file does not live under tests/peers, so the SDK is imported
// by absolute path from the peers' node_modules (the pinned install), not by bare specifier.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [peer, callsArg, warmupArg, peersArg] = process.argv.slice(2);
if (!peer || !callsArg || !warmupArg) {
    console.error('usage: sdkclient.mjs <echo-peer> <calls> <warm-up calls> [<peers dir>]');
    process.exit(2);
}
const calls = Number.parseInt(callsArg, 10);
const warmup = Number.parseInt(warmupArg, 10);
const peersDir = peersArg ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../peers');
const sdkDir = path.join(peersDir, 'node_modules/@modelcontextprotocol/sdk');
const sdkModule = (file) => import(pathToFileURL(path.join(sdkDir, 'dist/esm', file)).href);

const { Client } = await sdkModule('client/index.js');
const { StdioClientTransport } = await sdkModule('client/stdio.js');
const sdkVersion = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8')).version;

function fail(message) {
    console.error(`sdkclient: ${message}`);
    process.exit(1);
}

const client = new Client({ name: 'mcpscope-bench-sdk', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: peer, args: [], stderr: 'inherit' }));
const { tools } = await client.listTools();
if (!tools.some((tool) => tool.name === 'echo' && tool.annotations?.readOnlyHint === true))
    fail('the echo peer did not list a read-only tool "echo"');

async function roundTrips(count) {
    for (let i = 0; i < count; ++i) {
        const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
        if (result.content?.[0]?.text !== 'hello')
            fail(`call ${i} did not echo "hello": ${JSON.stringify(result)}`);
    }
}

await roundTrips(warmup);
const start = performance.now();
await roundTrips(calls);
const elapsedMs = performance.now() - start;
await client.close();

console.log(JSON.stringify({ client: 'sdk', sdkVersion, node: process.versions.node, calls, usPerCall: (elapsedMs * 1000) / calls }));
