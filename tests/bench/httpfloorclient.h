#pragma once

#include <QString>
#include <QUrl>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpscope {

/// The floor of the HTTP benchmarks: a bare HTTP/1.1 client on one keep-alive socket, blocking reads
/// and writes, parsing no more than it takes to find where each response ends. What it reaches is the
/// most any client can reach on a server, so the benchmarks divide by it.
class HttpFloorClient
{
public:
    HttpFloorClient() = default;
    ~HttpFloorClient();
    HttpFloorClient(const HttpFloorClient&) = delete;
    HttpFloorClient& operator=(const HttpFloorClient&) = delete;

    bool connectTo(const QUrl& url, QString* error);

    /// Sends one request (a POST of one JSON-RPC message, or a DELETE); returns the response body,
    /// SSE text or JSON, undecoded.
    std::optional<std::string> request(const char* method, const std::string& json, QString* error);

    /// From now on, sends the session id of the last response that had one, and this version.
    void useSession(std::string protocolVersion);
    bool hasSession() const { return !m_lastSessionId.empty(); }

private:
    bool fill();
    static std::nullopt_t fail(QString* error, const std::string& what);

    int m_fd = -1;
    std::string m_host;
    std::string m_path;
    std::string m_buffer;
    std::string m_sessionId;
    std::string m_lastSessionId;
    std::string m_protocolVersion;
};

/// One timed run of the floor: initialize, then warm-up and timed tools/call echo {message: "hello"},
/// one in flight, then DELETE.
struct HttpFloorRun
{
    bool ok = false;
    QString error;
    std::vector<qint64> latenciesNs; ///< each timed call, in order
    qint64 elapsedNs = 0; ///< all timed calls
    qint64 cpuNs = 0; ///< CPU time (user and system) of the thread that made the timed calls
};

/// CPU time (user and system) used so far by the calling thread, or with wholeProcess by all its threads.
qint64 cpuTimeNs(bool wholeProcess);

/// Blocks: run it on a thread of its own. expectedText is what the server's reply must contain (the
/// echo as the server words it, "Echo: hello" or "hello"); the reply must also carry the call's id.
HttpFloorRun runHttpFloor(
    const QUrl& url, const std::string& protocolVersion, int warmup, int calls, std::string_view expectedText);

} // namespace mcpscope
