#include "httpfloorclient.h"

#include <QElapsedTimer>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace mcpscope {

HttpFloorClient::~HttpFloorClient()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool HttpFloorClient::connectTo(const QUrl& url, QString* error)
{
    m_host = url.authority().toStdString();
    m_path = url.path().toStdString();
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_port = htons(quint16(url.port(80)));
    const int one = 1;
    if (m_fd < 0 || ::inet_pton(AF_INET, url.host().toLatin1().constData(), &address.sin_addr) != 1
        || ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0
        || ::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        *error = u"the floor client could not connect to %1: %2"_s.arg(
            url.toString(), QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

std::optional<std::string> HttpFloorClient::request(const char* method, const std::string& json, QString* error)
{
    std::string request = method + (" " + m_path) + " HTTP/1.1\r\nHost: " + m_host
        + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    if (!m_sessionId.empty())
        request += "Mcp-Session-Id: " + m_sessionId + "\r\nMCP-Protocol-Version: " + m_protocolVersion + "\r\n";
    request += "Content-Length: " + std::to_string(json.size()) + "\r\n\r\n" + json;
    for (size_t sent = 0; sent < request.size();) {
        const ssize_t n = ::send(m_fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0)
            return fail(error, "send failed");
        sent += size_t(n);
    }
    size_t headerEnd;
    while ((headerEnd = m_buffer.find("\r\n\r\n")) == std::string::npos) {
        if (!fill())
            return fail(error, "the server closed the connection");
    }
    const std::string rawHead = m_buffer.substr(0, headerEnd);
    m_buffer.erase(0, headerEnd + 4);
    std::string head = rawHead;
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (head.compare(0, 9, "http/1.1 ") != 0 || head.size() < 10 || head[9] != '2')
        return fail(error, "HTTP status " + rawHead.substr(0, rawHead.find('\r')));
    if (const auto at = head.find("\r\nmcp-session-id: "); at != std::string::npos) {
        const size_t start = at + 18; // same offset in the raw head: the id's case matters
        m_lastSessionId = rawHead.substr(start, rawHead.find("\r\n", start) - start);
    }
    std::string body;
    if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
        for (;;) {
            size_t lineEnd;
            while ((lineEnd = m_buffer.find("\r\n")) == std::string::npos) {
                if (!fill())
                    return fail(error, "the server closed the connection in a chunked body");
            }
            const size_t size = std::stoul(m_buffer.substr(0, lineEnd), nullptr, 16);
            while (m_buffer.size() < lineEnd + 2 + size + 2) {
                if (!fill())
                    return fail(error, "the server closed the connection in a chunk");
            }
            body.append(m_buffer, lineEnd + 2, size);
            m_buffer.erase(0, lineEnd + 2 + size + 2);
            if (size == 0)
                break; // no trailers from these servers: the last chunk ends with an empty line
        }
    } else if (const auto at = head.find("\r\ncontent-length: "); at != std::string::npos) {
        const size_t length = std::stoul(head.substr(at + 18));
        while (m_buffer.size() < length) {
            if (!fill())
                return fail(error, "the server closed the connection in a body");
        }
        body = m_buffer.substr(0, length);
        m_buffer.erase(0, length);
    }
    return body;
}

void HttpFloorClient::useSession(std::string protocolVersion)
{
    m_sessionId = m_lastSessionId;
    m_protocolVersion = std::move(protocolVersion);
}

bool HttpFloorClient::fill()
{
    char chunk[16384];
    const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
    if (n <= 0)
        return false;
    m_buffer.append(chunk, size_t(n));
    return true;
}

std::nullopt_t HttpFloorClient::fail(QString* error, const std::string& what)
{
    *error = u"the floor client: %1"_s.arg(QString::fromStdString(what));
    return std::nullopt;
}

qint64 cpuTimeNs(bool wholeProcess)
{
    rusage usage {};
    ::getrusage(wholeProcess ? RUSAGE_SELF : RUSAGE_THREAD, &usage);
    const auto ns = [](const timeval& t) { return qint64(t.tv_sec) * 1'000'000'000 + qint64(t.tv_usec) * 1000; };
    return ns(usage.ru_utime) + ns(usage.ru_stime);
}

HttpFloorRun runHttpFloor(
    const QUrl& url, const std::string& protocolVersion, int warmup, int calls, std::string_view expectedText)
{
    HttpFloorRun result;
    HttpFloorClient client;
    if (!client.connectTo(url, &result.error))
        return result;
    // It offers the same protocol version as the engine, so the server takes the same path for it.
    const auto initialize = client.request("POST",
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" + protocolVersion
            + R"(","capabilities":{},"clientInfo":{"name":"mcpscope-bench-floor","version":"1.0.0"}}})",
        &result.error);
    if (!initialize)
        return result;
    if (initialize->find(R"("protocolVersion":")" + protocolVersion + '"') == std::string::npos
        || !client.hasSession()) {
        result.error = u"the floor client's initialize got no session or another version: %1"_s.arg(
            QString::fromStdString(*initialize));
        return result;
    }
    client.useSession(protocolVersion);
    if (!client.request("POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", &result.error))
        return result;

    result.latenciesNs.reserve(size_t(calls));
    QElapsedTimer clock;
    clock.start();
    qint64 timedStartNs = 0;
    qint64 cpuStartNs = 0;
    for (int i = 0; i < warmup + calls; ++i) {
        if (i == warmup) {
            timedStartNs = clock.nsecsElapsed();
            cpuStartNs = cpuTimeNs(false);
        }
        const qint64 startNs = clock.nsecsElapsed();
        const std::string id = std::to_string(i + 1);
        const auto body = client.request("POST",
            R"({"jsonrpc":"2.0","id":)" + id
                + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}})",
            &result.error);
        if (!body)
            return result;
        // No decoding: the reply must carry this id and the echo, and no error.
        const bool hasId = body->find(R"("id":)" + id + '}') != std::string::npos
            || body->find(R"("id":)" + id + ',') != std::string::npos;
        if (!hasId || body->find(expectedText) == std::string::npos || body->find(R"("error")") != std::string::npos) {
            result.error = u"floor call %1 did not echo \"hello\": %2"_s.arg(i).arg(QString::fromStdString(*body));
            return result;
        }
        if (i >= warmup)
            result.latenciesNs.push_back(clock.nsecsElapsed() - startNs);
    }
    result.elapsedNs = clock.nsecsElapsed() - timedStartNs;
    result.cpuNs = cpuTimeNs(false) - cpuStartNs;
    QString ignored;
    client.request("DELETE", {}, &ignored); // ends the session on the server; its answer does not matter
    result.ok = true;
    return result;
}

} // namespace mcpscope
