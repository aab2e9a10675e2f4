#pragma once

#include <QObject>
#include <QPointer>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace mcpscope {

class FaultProxy;

/// A tiny HTTP API to arm a FaultProxy's faults from scripts, tests and other tools, used by
/// `mcpscope-cli proxy --control PORT`. It listens on 127.0.0.1 only; every answer is JSON and closes
/// the connection.
///
///     GET    /faults     200 [{"id":1,"kind":"expire-after","count":1,"method":"tools/call","tool":"write"}, …]
///     POST   /faults     body {"kind":"expire-after","count":1,"method":"tools/call","tool":"write","delayMs":0}
///                        201 {"id":1}
///                        400 {"error":"…"} when the body is not a fault
///     DELETE /faults/N   204, or 404 {"error":"…"} when no fault N is armed
///     DELETE /faults     204: disarms every fault
///     GET    /           200 {"proxy":"http://127.0.0.1:P/mcp","upstream":"…","forwarded":N,"faultsFired":N,
///                             "duplicatesRefused":N}
///
/// kind is one of expire-before, expire-after, cut-after, auth-401, delay, drop-stream, close-before-head,
/// rst-before-head. count (default 1)
/// is how many matching requests the fault applies to; method and tool (both optional) narrow which
/// JSON-RPC requests match (tool: tools/call of that tool); delayMs is required for delay. Only POSTs
/// carrying a JSON-RPC request ever match; without method and tool a fault takes the next one.
/// Only tools may use it, never a web page: a request must name Host 127.0.0.1:PORT or localhost:PORT
/// (403 otherwise, which stops DNS rebinding), carry no Origin header (403) and send its body as
/// Content-Type: application/json (415), which a page cannot do without a CORS preflight we never answer.
/// Example: curl -H 'Content-Type: application/json' -d '{"kind":"cut-after"}' http://127.0.0.1:PORT/faults
class FaultControlServer : public QObject
{
    Q_OBJECT
public:
    explicit FaultControlServer(FaultProxy* proxy, QObject* parent = nullptr);
    ~FaultControlServer() override;

    /// Listens on 127.0.0.1:port (0: any free port).
    bool listen(quint16 port = 0, QString* error = nullptr);
    quint16 port() const;
    /// http://127.0.0.1:port
    QUrl url() const;

private:
    void onNewConnection();
    void serve(QTcpSocket* socket, const QByteArray& method, const QByteArray& target, const QByteArray& body);

    QPointer<FaultProxy> m_proxy;
    QTcpServer* m_server = nullptr;
};

} // namespace mcpscope
