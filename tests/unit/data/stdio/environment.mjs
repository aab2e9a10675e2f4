// Reports the environment and working directory it was started with as one JSON-RPC notification, and
// stays up until stdin closes. Node adds no variables of its own, unlike sh, which exports PWD.
const params = { env: process.env, cwd: process.cwd() };
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "environment", params }) + "\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
