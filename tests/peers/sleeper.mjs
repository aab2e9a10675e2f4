// A process a server leaves behind: it starts the next level below it, records itself in the ledger,
// says "ready" on stdout once everything below it is ready, then waits until it is killed.
// The marker is an argument, so `ps -eo args` finds every level.
// Usage: node sleeper.mjs LEDGER MARKER DEPTH    (DEPTH 2: this process and one child)
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [ledger, marker, depthText] = process.argv.slice(2);
const depth = Number(depthText ?? 1);
const ready = () => {
  fs.appendFileSync(ledger, JSON.stringify({ event: 'sleeper', marker, depth, pid: process.pid,
    ppid: process.ppid, at: Date.now() }) + '\n');
  process.stdout.write('ready\n');
};
setInterval(() => {}, 1 << 30);
if (depth > 1) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ledger, marker, String(depth - 1)],
    { stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.once('data', ready);
} else {
  ready();
}
