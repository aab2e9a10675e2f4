// A stdio MCP server that writes lines that are not JSON-RPC to stdout, the way servers that
// console.log() to stdout do.
//
//   node garbage-stdout.mjs               garbage first, then a normal SDK server with an `echo` tool
//   node garbage-stdout.mjs --only-garbage garbage for every line read, never a JSON-RPC answer
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createInterface } from "node:readline";
import { z } from "zod";

const garbage = [
    "Starting garbage-stdout server (this line belongs on stderr)",
    "Debugger listening on ws://127.0.0.1:9229/not-json",
    "{this is not json",
];

if (process.argv.includes("--only-garbage")) {
    for (const line of garbage)
        process.stdout.write(line + "\n");
    const rl = createInterface({ input: process.stdin });
    rl.on("line", (line) => process.stdout.write(`got ${line.length} bytes, answering with text instead\n`));
    // Stay up after stdin ends: the client has to stop us.
    setInterval(() => {}, 1 << 30);
} else {
    for (const line of garbage)
        process.stdout.write(line + "\n");
    const server = new McpServer({ name: "garbage-stdout", version: "1.0.0" });
    server.registerTool(
        "echo",
        { description: "Echoes the message", inputSchema: { message: z.string() } },
        async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] })
    );
    await server.connect(new StdioServerTransport());
}
