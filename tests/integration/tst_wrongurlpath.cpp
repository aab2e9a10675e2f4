// A URL whose path serves no MCP: a loopback HTTP server that answers every request with a 404 HTML
// page. An "auto" server tries Streamable HTTP, falls back to the legacy HTTP+SSE transport, and its
// error then says what was tried (both attempts and their status), not the page's HTML. Nothing on the
// way shows the transport's local stand-in ("connection:N") as a session id.

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "models/serverlistmodel.h"
#include "models/serverlistmodeldefs.h"

#include <QAbstractItemModelTester>
#include <QHostAddress>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace mcpscope;

namespace {

/// Answers every request with 404 and an HTML page, once its body has arrived; counts the requests.
class NotFoundServer : public QObject
{
public:
    NotFoundServer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                auto buffer = std::make_shared<QByteArray>();
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    buffer->append(socket->readAll());
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0)
                        return;
                    qsizetype length = 0;
                    for (const QByteArray& line : buffer->left(end).split('\n')) {
                        if (line.trimmed().toLower().startsWith("content-length:"))
                            length = line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
                    }
                    if (buffer->size() < end + 4 + length)
                        return;
                    requests.append(buffer->left(buffer->indexOf("\r\n")));
                    const QByteArray page = "<!DOCTYPE html><html><head><title>Error</title></head>"
                                            "<body><pre>Cannot POST /wrong</pre></body></html>";
                    socket->write("HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n"
                                  "Content-Length: "
                        + QByteArray::number(page.size()) + "\r\nConnection: close\r\n\r\n" + page);
                    socket->disconnectFromHost();
                    buffer->clear();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    quint16 port() const { return m_server.serverPort(); }

    QList<QByteArray> requests; ///< their request lines

private:
    QTcpServer m_server;
};

} // namespace

class TestWrongUrlPath : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bothTransportsRefusedSaysWhatWasTried();
};

void TestWrongUrlPath::bothTransportsRefusedSaysWhatWasTried()
{
    NotFoundServer server;
    QVERIFY(server.listen());
    Engine engine;
    ServerListModel model(&engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ServerConfig config;
    config.name = QStringLiteral("wrong-path");
    config.transport = TransportKind::AutoHttp;
    config.url = QUrl(QStringLiteral("http://127.0.0.1:%1/wrong").arg(server.port()));
    ServerConnection* c = engine.addServer(config);

    // Before any connect the connection reports the transport it will try, not stdio.
    QCOMPARE(c->activeTransport(), TransportKind::StreamableHttp);
    QCOMPARE(model.index(0, ServerListModelColumn::Transport).data().toInt(), int(TransportKind::AutoHttp));

    QSignalSpy failed(c, &ServerConnection::failed);
    c->connectToServer();
    QVERIFY(failed.wait(20000));
    QCOMPARE(c->state(), ServerConnection::State::Failed);
    QCOMPARE(c->activeTransport(), TransportKind::LegacySse);

    // Every attempt reached the server: the era probe's server/discover POST (a plain 404 means a legacy
    // server, era auto being the default), the initialize POST, then the legacy event-stream GET.
    QCOMPARE(server.requests.size(), 3);
    QVERIFY2(server.requests.at(0).startsWith("POST /wrong "), server.requests.at(0).constData());
    QVERIFY2(server.requests.at(1).startsWith("POST /wrong "), server.requests.at(1).constData());
    QVERIFY2(server.requests.at(2).startsWith("GET /wrong "), server.requests.at(2).constData());

    const QString error = c->lastError();
    const QString url = config.url.toString();
    QCOMPARE(failed.last().at(0).toString(), error);
    QVERIFY2(error.startsWith(QStringLiteral("Server 'wrong-path': POST %1 got 404; the legacy SSE fallback's GET "
                                             "got 404.")
                                  .arg(url)),
        qPrintable(error));
    QVERIFY2(
        !error.contains(QLatin1String("<html")) && !error.contains(QLatin1String("Cannot POST")), qPrintable(error));

    // A failed connection has no session to show: never the transport's "connection:N" stand-in.
    QCOMPARE(c->shownSessionId(), QString());
    QCOMPARE(model.index(0, ServerListModelColumn::SessionId).data().toString(), QString());
    QCOMPARE(model.index(0, 0).data(ServerListModelRole::SessionIdRole).toString(), QString());
}

QTEST_GUILESS_MAIN(TestWrongUrlPath)
#include "tst_wrongurlpath.moc"
