// The stdio MCP server of the limits benchmark: what a hostile or runaway server does to a client.
// Three tools, each a limit the client must hold:
// - "flood" {"rate": N, "seconds": S} sends notifications/message and notifications/progress (on the
//   call's progress token, when it has one) at N per second for S seconds, then answers with how many
//   it sent. Writes block when the client stops reading, so the rate is what the client accepts.
// - "big" {"bytes": N} answers with one text content of N bytes, written in 1 MiB pieces.
// - "echo" {"message": "…"} answers with the message.
// Like echopeer it finds keys by plain string search in the compact JSON the engine sends; it is not
// a general JSON-RPC server. No Qt, so a hundred of them start as fast as processes can.

#include "stdiopeerwire.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace {

using stdiopeer::rawValue;
using stdiopeer::writeAll;

constexpr std::string_view ProtocolVersion = "2025-11-25";

long long number(std::string_view line, std::string_view quotedKey, long long fallback)
{
    const std::string token(rawValue(line, quotedKey));
    return token.empty() ? fallback : std::atoll(token.c_str());
}

std::string resultHead(std::string_view id)
{
    std::string out = R"({"jsonrpc":"2.0","id":)";
    out += id;
    out += R"(,"result":)";
    return out;
}

void answerText(std::string_view id, std::string_view jsonString)
{
    std::string out = resultHead(id);
    out += R"({"content":[{"type":"text","text":)";
    out += jsonString;
    out += "}]}}\n";
    writeAll(out);
}

void flood(std::string_view id, std::string_view line)
{
    using Clock = std::chrono::steady_clock;
    const long long rate = std::max(1LL, number(line, "\"rate\"", 100000));
    const long long seconds = std::max(1LL, number(line, "\"seconds\"", 5));
    const std::string token(rawValue(line, "\"progressToken\""));
    const long long total = rate * seconds;
    const auto start = Clock::now();
    std::string batch;
    long long sent = 0;
    while (sent < total) {
        // Everything due by now, in one write: the pace is kept per millisecond, not per message.
        const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
        const long long due = std::min(total, elapsed * rate / 1000000 + 1);
        if (due <= sent) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        batch.clear();
        for (; sent < due; ++sent) {
            const std::string n = std::to_string(sent);
            if (!token.empty() && sent % 2 == 1) {
                batch += R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":)";
                batch += token;
                batch += R"(,"progress":)" + n + R"(,"total":)" + std::to_string(total) + "}}\n";
            } else {
                batch += R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",)"
                         R"("logger":"flood","data":"notification )"
                    + n + "\"}}\n";
            }
        }
        writeAll(batch);
    }
    answerText(id, "\"sent " + std::to_string(sent) + " notifications\"");
}

void big(std::string_view id, std::string_view line)
{
    const long long bytes = std::max(0LL, number(line, "\"bytes\"", 500LL * 1000 * 1000));
    std::string out = resultHead(id);
    out += R"({"content":[{"type":"text","text":")";
    writeAll(out);
    const std::string piece(1 << 20, 'x');
    for (long long left = bytes; left > 0; left -= (long long)piece.size())
        writeAll(std::string_view(piece).substr(0, size_t(std::min<long long>(left, (long long)piece.size()))));
    writeAll("\"}]}}\n");
}

void handle(std::string_view line)
{
    const std::string_view id = rawValue(line, "\"id\"");
    if (id.empty())
        return; // a notification (initialized, cancelled): nothing to answer
    const std::string_view method = rawValue(line, "\"method\"");
    if (method == "\"tools/call\"") {
        const std::string_view name = rawValue(line, "\"name\"");
        if (name == "\"flood\"")
            flood(id, line);
        else if (name == "\"big\"")
            big(id, line);
        else
            answerText(id, rawValue(line, "\"message\"").empty() ? "\"\"" : rawValue(line, "\"message\""));
    } else if (method == "\"initialize\"") {
        std::string out = resultHead(id);
        out += R"({"protocolVersion":")";
        out += ProtocolVersion;
        out += R"(","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"mcpscope-limitspeer","version":"1.0.0"}}})";
        out += '\n';
        writeAll(out);
    } else if (method == "\"tools/list\"") {
        std::string out = resultHead(id);
        out += R"({"tools":[)"
               R"({"name":"flood","description":"Sends notifications at rate per second for seconds.",)"
               R"("inputSchema":{"type":"object","properties":{"rate":{"type":"integer"},"seconds":{"type":"integer"}}}},)"
               R"({"name":"big","description":"Answers with a text of bytes bytes.",)"
               R"("inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}}}},)"
               R"({"name":"echo","description":"Returns the message argument as text.",)"
               R"("inputSchema":{"type":"object","properties":{"message":{"type":"string"}}},)"
               R"("annotations":{"readOnlyHint":true}}]}})";
        out += '\n';
        writeAll(out);
    } else if (!method.empty()) {
        std::string out = R"({"jsonrpc":"2.0","id":)";
        out += id;
        out += method == "\"ping\"" ? R"(,"result":{}})" : R"(,"error":{"code":-32601,"message":"Method not found"}})";
        out += '\n';
        writeAll(out);
    }
}

} // namespace

int main()
{
    std::signal(SIGPIPE, SIG_IGN);
    std::string buffer;
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
            handle(line);
            start = nl + 1;
        }
        buffer.erase(0, start);
    }
}
