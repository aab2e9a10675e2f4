// A stdio "server" that reads stdin and never answers. It stays up after stdin closes, so the
// client has to signal it.
//
//   --ignore-sigterm    survive SIGTERM too, so only SIGKILL ends it
//   --spawn-grandchild  start a child that also ignores SIGTERM and inherits our environment
//                       (and so any marker in it), to check the client reaps the whole group
import { spawn } from "node:child_process";

if (process.argv.includes("--ignore-sigterm"))
    process.on("SIGTERM", () => process.stderr.write("never-answers: ignoring SIGTERM\n"));
let processes = 1;
if (process.argv.includes("--spawn-grandchild")) {
    spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30);"], {
        stdio: "ignore",
    });
    processes = 2;
}
// Tests wait for this line before they count the processes that carry their marker.
process.stderr.write(`never-answers: ready, ${processes} process(es)\n`);
process.stdin.resume();
process.stdin.on("data", () => {});
setInterval(() => {}, 1 << 30);
