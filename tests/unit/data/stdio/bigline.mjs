// Writes one JSON-RPC response whose result holds a string of <bytes> ASCII characters, then a small
// notification, and stays up until stdin closes, as a stdio MCP server would.
// Usage: node bigline.mjs <bytes> head|tail [nested|flat] [exit]
//   tail: the id comes after the result, the order the official SDK writes; head: the id comes first.
//   nested: the result ends with objects that have an "id" of their own, as tool output often does.
//   exit: exits with status 3 right after the two lines instead of staying up.
const [bytes, idPosition, nested, exit] = process.argv.slice(2);
const result = { text: "x".repeat(Number(bytes)) };
if (nested === "nested") result.items = [{ id: 99 }, { id: "item-2" }];
const message =
    idPosition === "head" ? { jsonrpc: "2.0", id: "big-1", result } : { result, jsonrpc: "2.0", id: 7 };
process.stdout.write(JSON.stringify(message) + "\n");
process.stdout.write('{"jsonrpc":"2.0","method":"after"}\n', () => {
    if (exit === "exit") process.exit(3);
});
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
