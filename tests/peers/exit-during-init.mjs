// A stdio "server" that reads the initialize request and exits with code 3 before answering it.
import { createInterface } from "node:readline";

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
    let message;
    try {
        message = JSON.parse(line);
    } catch {
        return;
    }
    if (message.method === "initialize") {
        process.stderr.write("exit-during-init: got initialize, exiting with code 3\n");
        process.exit(3);
    }
});
