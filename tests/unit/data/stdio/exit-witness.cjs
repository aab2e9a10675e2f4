// Preloaded with `node -r` into a real server (server-everything) to note how it ended, one word a line,
// in the file EXIT_WITNESS names: "eof" when its stdin ends, "sigterm" when SIGTERM comes (it then
// exits, as node would by default). Nothing else of the server changes.
const fs = require("node:fs");

const note = (what) => fs.appendFileSync(process.env.EXIT_WITNESS, what + "\n");
process.stdin.on("end", () => note("eof"));
process.on("SIGTERM", () => {
    note("sigterm");
    process.exit(143);
});
