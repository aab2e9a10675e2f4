// A minimal MCP server over stdio for the call-overhead benchmark: newline-delimited JSON-RPC
// on stdin, one answer line per request on stdout. It is the fixed cost under all three clients
// (floor, engine, SDK), so it parses nothing: it finds "id", "method" and "message" by plain
// string search and copies their raw JSON tokens into the answer. That is enough for the lines
// the three clients send (compact JSON, keys in any order, no "id"/"method"/"message" keys
// nested in arguments); it is not a general JSON-RPC server.
//
// No Qt and no dependencies, so it starts in a millisecond and costs the same under every client.

#include "stdiopeerwire.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

using stdiopeer::rawValue;
using stdiopeer::writeAll;

constexpr std::string_view ProtocolVersion = "2025-11-25";

class Peer
{
public:
    Peer() { m_out.reserve(4096); }

    void handle(std::string_view line)
    {
        const std::string_view id = rawValue(line, "\"id\"");
        if (id.empty())
            return; // a notification (initialized, cancelled): nothing to answer
        const std::string_view method = rawValue(line, "\"method\"");
        if (method == "\"tools/call\"") {
            const std::string_view message = rawValue(line, "\"message\"");
            if (message.empty() || message.front() != '"') {
                error(id, -32602, "tools/call echo needs a string argument \\\"message\\\"");
                return;
            }
            begin(id);
            m_out += R"({"content":[{"type":"text","text":)";
            m_out += message;
            m_out += "}]}}\n";
        } else if (method == "\"initialize\"") {
            begin(id);
            m_out += R"({"protocolVersion":")";
            m_out += ProtocolVersion;
            m_out += R"(","capabilities":{"tools":{}},"serverInfo":{"name":"mcpscope-echopeer","version":"1.0.0"}}})";
            m_out += '\n';
        } else if (method == "\"tools/list\"") {
            begin(id);
            m_out += R"({"tools":[{"name":"echo","description":"Returns the message argument as text.",)"
                     R"("inputSchema":{"type":"object","properties":{"message":{"type":"string"}},)"
                     R"("required":["message"]},"annotations":{"readOnlyHint":true}}]}})";
            m_out += '\n';
        } else if (method == "\"ping\"") {
            begin(id);
            m_out += "{}}\n";
        } else if (!method.empty()) {
            error(id, -32601, "Method not found");
            return;
        } else {
            return; // a response to nothing we asked
        }
        writeAll(m_out);
    }

private:
    void begin(std::string_view id)
    {
        m_out.assign(R"({"jsonrpc":"2.0","id":)");
        m_out += id;
        m_out += R"(,"result":)";
    }

    void error(std::string_view id, int code, std::string_view message)
    {
        m_out.assign(R"({"jsonrpc":"2.0","id":)");
        m_out += id;
        m_out += R"(,"error":{"code":)";
        m_out += std::to_string(code);
        m_out += R"(,"message":")";
        m_out += message;
        m_out += "\"}}\n";
        writeAll(m_out);
    }

    std::string m_out;
};

} // namespace

int main()
{
    std::signal(SIGPIPE, SIG_IGN);
    Peer peer;
    std::string buffer;
    buffer.reserve(1 << 16);
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n == 0)
            return 0; // stdin closed: the client is shutting us down
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        buffer.append(chunk, size_t(n));
        size_t start = 0;
        for (size_t nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n', start)) {
            std::string_view line(buffer.data() + start, nl - start);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            peer.handle(line);
            start = nl + 1;
        }
        buffer.erase(0, start);
    }
}
