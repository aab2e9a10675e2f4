// The loopback listener of the authorization-code flow, driven with raw QTcpSocket requests so each test
// writes its own Host header, method and head size: what a browser sends, and what a web page that
// reaches 127.0.0.1 by DNS rebinding or a local process could send instead.

#include "auth/redirectlistener.h"

#include <QHostAddress>
#include <QNetworkInterface>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace mcpscope;

namespace {

const QByteArray Code = QByteArrayLiteral("SplxlOBeZQQYbYS6WxSbIA");

struct Answer
{
    bool connected = false;
    bool closed = false; ///< the listener closed the connection
    int status = 0;
    QByteArray head;
    QByteArray body;
};

/// A connected socket to the listener; the test's event loop keeps running while it waits.
std::unique_ptr<QTcpSocket> connectTo(quint16 port)
{
    auto socket = std::make_unique<QTcpSocket>();
    QSignalSpy connected(socket.get(), &QTcpSocket::connected);
    socket->connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    if (socket->state() != QAbstractSocket::ConnectedState && !connected.wait(5000))
        return {};
    return socket;
}

/// Writes bytes (if any) and reads until the listener closes the connection.
Answer exchange(QTcpSocket* socket, const QByteArray& bytes)
{
    Answer answer;
    answer.connected = socket != nullptr;
    if (!socket)
        return answer;
    QSignalSpy disconnected(socket, &QTcpSocket::disconnected);
    QByteArray received;
    QObject::connect(socket, &QTcpSocket::readyRead, socket, [&] { received += socket->readAll(); });
    if (!bytes.isEmpty())
        socket->write(bytes);
    answer.closed = socket->state() == QAbstractSocket::UnconnectedState || disconnected.wait(15000);
    received += socket->readAll();
    QObject::disconnect(socket, &QTcpSocket::readyRead, socket, nullptr);
    const qsizetype end = received.indexOf("\r\n\r\n");
    answer.head = received.left(end);
    answer.body = end < 0 ? QByteArray() : received.mid(end + 4);
    const QList<QByteArray> statusLine = answer.head.left(answer.head.indexOf("\r\n")).split(' ');
    if (statusLine.size() >= 2 && statusLine.first() == "HTTP/1.1")
        answer.status = statusLine.at(1).toInt();
    return answer;
}

Answer request(quint16 port, const QByteArray& bytes)
{
    auto socket = connectTo(port);
    return exchange(socket.get(), bytes);
}

QByteArray get(const QByteArray& target, const QByteArray& host)
{
    return "GET " + target + " HTTP/1.1\r\nHost: " + host
        + "\r\nUser-Agent: Mozilla/5.0\r\nAccept: text/html\r\nConnection: keep-alive\r\n\r\n";
}

QByteArray hostOf(const RedirectListener& listener)
{
    return "127.0.0.1:" + QByteArray::number(listener.port());
}

QByteArray goodTarget(const QByteArray& state = "st-1")
{
    return "/mcpscope/oauth/callback?code=" + Code + "&state=" + state + "&iss=https%3A%2F%2Fas.example%2Ftenant";
}

bool hasHeader(const Answer& answer, const QByteArray& line)
{
    return answer.head.split('\n').contains(line + '\r') || answer.head.endsWith(QByteArray("\r\n" + line));
}

} // namespace

class TestRedirectListener : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bindsTheIpv4LoopbackOnly();
    void redirectUriNamesTheBoundPort();
    void goodCallbackIsDeliveredOnce_data();
    void goodCallbackIsDeliveredOnce();
    void errorCallbackShowsTheErrorAndIsDelivered();
    void refusedRequestsDoNotEndTheWait_data();
    void refusedRequestsDoNotEndTheWait();
    void noExpectedStateRefusesEveryCallback();
    void faviconIsNotReported();
    void silentOrStalledClientIsClosedWithoutBlocking_data();
    void silentOrStalledClientIsClosedWithoutBlocking();
    void secondCallbackIsNotDelivered();
    void preferredPortIsReusedWhenFree();
    void anotherPortIsChosenWhenThePreferredIsTaken();
};

void TestRedirectListener::bindsTheIpv4LoopbackOnly()
{
    RedirectListener listener;
    QString error;
    QVERIFY2(listener.listen(&error), qPrintable(error));
    const auto* server = listener.findChild<QTcpServer*>();
    QVERIFY(server);
    QCOMPARE(server->serverAddress(), QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(server->serverAddress().toString(), QStringLiteral("127.0.0.1"));

    // Every other address of this machine refuses the port.
    const QList<QHostAddress> addresses = QNetworkInterface::allAddresses();
    for (const QHostAddress& address : addresses) {
        if (address.isLoopback() || address.protocol() != QAbstractSocket::IPv4Protocol)
            continue;
        QTcpSocket socket;
        QSignalSpy errorSpy(&socket, &QTcpSocket::errorOccurred);
        socket.connectToHost(address, listener.port());
        QVERIFY(errorSpy.wait(5000));
        QCOMPARE(socket.error(), QAbstractSocket::ConnectionRefusedError);
    }
}

void TestRedirectListener::redirectUriNamesTheBoundPort()
{
    RedirectListener listener;
    QVERIFY(!listener.redirectUri().isValid());
    QVERIFY(!listener.isListening());
    QVERIFY(listener.listen());
    QVERIFY(listener.isListening());
    QVERIFY(listener.port() != 0);
    const QUrl expected(QStringLiteral("http://127.0.0.1:%1/mcpscope/oauth/callback").arg(listener.port()));
    QCOMPARE(listener.redirectUri(), expected);
    QCOMPARE(RedirectListener::callbackPath(), QStringLiteral("/mcpscope/oauth/callback"));
    // The token request repeats the redirect URI after the listener stopped.
    listener.close();
    QVERIFY(!listener.isListening());
    QCOMPARE(listener.redirectUri(), expected);
}

void TestRedirectListener::goodCallbackIsDeliveredOnce_data()
{
    QTest::addColumn<QByteArray>("hostName");
    QTest::newRow("Host 127.0.0.1:port") << QByteArray("127.0.0.1");
    QTest::newRow("Host localhost:port") << QByteArray("localhost");
    QTest::newRow("Host LocalHost:port (names are case-insensitive)") << QByteArray("LocalHost");
}

void TestRedirectListener::goodCallbackIsDeliveredOnce()
{
    QFETCH(QByteArray, hostName);
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);

    const Answer answer
        = request(listener.port(), get(goodTarget(), hostName + ':' + QByteArray::number(listener.port())));
    QVERIFY(answer.connected);
    QVERIFY(answer.closed);
    QCOMPARE(answer.status, 200);
    QVERIFY(hasHeader(answer, "Content-Type: text/html; charset=utf-8"));
    QVERIFY(hasHeader(answer, "Connection: close"));
    QVERIFY(hasHeader(answer, "Cache-Control: no-store"));
    QVERIFY2(answer.body.contains("you can close this tab and go back to McpScope"), answer.body.constData());
    QVERIFY(!answer.body.contains(Code));

    QCOMPARE(callbacks.size(), 1);
    QCOMPARE(rejected.size(), 0);
    const auto query = callbacks.first().first().value<QUrlQuery>();
    QCOMPARE(query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded), QString::fromLatin1(Code));
    QCOMPARE(query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded), QStringLiteral("st-1"));
    QCOMPARE(
        query.queryItemValue(QStringLiteral("iss"), QUrl::FullyDecoded), QStringLiteral("https://as.example/tenant"));
    QVERIFY(!listener.isListening());

    // Stopped means stopped: a new connection is refused by the operating system.
    QTcpSocket late;
    QSignalSpy lateError(&late, &QTcpSocket::errorOccurred);
    late.connectToHost(QHostAddress(QHostAddress::LocalHost), listener.port());
    QVERIFY(lateError.wait(5000));
    QCOMPARE(late.error(), QAbstractSocket::ConnectionRefusedError);
    QCOMPARE(callbacks.size(), 1);
}

void TestRedirectListener::errorCallbackShowsTheErrorAndIsDelivered()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);

    // Form encoding: '+' is a space, %2B a plus.
    const Answer answer = request(listener.port(),
        get("/mcpscope/oauth/callback?error=access_denied&error_description=The+user+said+no%2Bthanks&state=st-1",
            hostOf(listener)));
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.body.contains("access_denied: The user said no+thanks"), answer.body.constData());
    QCOMPARE(callbacks.size(), 1);
    const auto query = callbacks.first().first().value<QUrlQuery>();
    QCOMPARE(query.queryItemValue(QStringLiteral("error"), QUrl::FullyDecoded), QStringLiteral("access_denied"));
    QCOMPARE(query.queryItemValue(QStringLiteral("error_description"), QUrl::FullyDecoded),
        QStringLiteral("The user said no+thanks"));
    QVERIFY(!query.hasQueryItem(QStringLiteral("code")));
}

void TestRedirectListener::refusedRequestsDoNotEndTheWait_data()
{
    // PORT stands for the listener's port, OTHER for another one.
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("reason"); ///< a part of the rejected() text

    const QByteArray good = goodTarget();
    QTest::newRow("wrong state") << get(goodTarget("st-other"), "127.0.0.1:PORT") << 400
                                 << QStringLiteral("state is not the one");
    QTest::newRow("empty state") << get(goodTarget(""), "127.0.0.1:PORT") << 400
                                 << QStringLiteral("state is not the one");
    QTest::newRow("no state") << get("/mcpscope/oauth/callback?code=" + Code, "127.0.0.1:PORT") << 400
                              << QStringLiteral("without a state");
    QTest::newRow("state twice") << get(good + "&state=st-2", "127.0.0.1:PORT") << 400
                                 << QStringLiteral("'state' more than once");
    QTest::newRow("code twice") << get(good + "&code=other", "127.0.0.1:PORT") << 400
                                << QStringLiteral("'code' more than once");
    QTest::newRow("Host of another name (DNS rebinding)")
        << get(good, "evil.example:PORT") << 400 << QStringLiteral("host 'evil.example:PORT'");
    QTest::newRow("Host 127.0.0.1 on another port")
        << get(good, "127.0.0.1:OTHER") << 400 << QStringLiteral("host '127.0.0.1:OTHER'");
    QTest::newRow("Host without a port") << get(good, "127.0.0.1") << 400 << QStringLiteral("host '127.0.0.1'");
    QTest::newRow("Host [::1]:port") << get(good, "[::1]:PORT") << 400 << QStringLiteral("host '[::1]:PORT'");
    QTest::newRow("no Host") << QByteArray("GET " + good + " HTTP/1.1\r\nAccept: text/html\r\n\r\n") << 400
                             << QStringLiteral("without a Host header");
    QTest::newRow("two Hosts") << QByteArray(
        "GET " + good + " HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nHost: evil.example:PORT\r\n\r\n")
                               << 400 << QStringLiteral("more than one Host header");
    QTest::newRow("another path") << get("/other?state=st-1&code=" + Code, "127.0.0.1:PORT") << 404
                                  << QStringLiteral("path '/other'");
    QTest::newRow("callback path with a trailing slash") << get("/mcpscope/oauth/callback/?state=st-1&code=" + Code,
        "127.0.0.1:PORT") << 404 << QStringLiteral("path '/mcpscope/oauth/callback/'");
    QTest::newRow("absolute-form target") << get("http://127.0.0.1:PORT" + good, "127.0.0.1:PORT") << 404
                                          << QStringLiteral("path 'http://127.0.0.1:PORT/mcpscope/oauth/callback'");
    QTest::newRow("POST") << QByteArray("POST " + good
        + " HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nContent-Type: "
          "application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\na=b&c")
                          << 405 << QStringLiteral("refused a POST request");
    QTest::newRow("HEAD") << QByteArray("HEAD " + good + " HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n") << 405
                          << QStringLiteral("refused a HEAD request");
    QTest::newRow("head over 8 KiB") << QByteArray(
        "GET " + good + " HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-Pad: " + QByteArray(9000, 'a') + "\r\n\r\n")
                                     << 400 << QStringLiteral("larger than 8 KiB");
    QTest::newRow("head over 8 KiB that never ends")
        << QByteArray("GET " + good + " HTTP/1.1\r\nX-Pad: " + QByteArray(9000, 'a')) << 400
        << QStringLiteral("larger than 8 KiB");
    QTest::newRow("not HTTP") << QByteArray("HELLO\r\n\r\n") << 400 << QStringLiteral("not HTTP/1.1");
}

void TestRedirectListener::refusedRequestsDoNotEndTheWait()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QFETCH(QString, reason);

    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);
    const QByteArray port = QByteArray::number(listener.port());
    const QByteArray other = QByteArray::number(listener.port() == 65535 ? 65534 : listener.port() + 1);
    bytes.replace("PORT", port).replace("OTHER", other);
    reason.replace(QStringLiteral("PORT"), QString::fromLatin1(port))
        .replace(QStringLiteral("OTHER"), QString::fromLatin1(other));

    const Answer answer = request(listener.port(), bytes);
    QVERIFY(answer.closed);
    QCOMPARE(answer.status, status);
    QVERIFY(hasHeader(answer, "Connection: close"));
    QVERIFY(hasHeader(answer, "Content-Type: text/plain; charset=utf-8"));
    QVERIFY(!answer.body.contains(Code));
    QCOMPARE(callbacks.size(), 0);
    QCOMPARE(rejected.size(), 1);
    const QString text = rejected.first().first().toString();
    QVERIFY2(text.contains(reason), qPrintable(text));
    QVERIFY2(!text.contains(QString::fromLatin1(Code)), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("st-1")));
    QVERIFY(listener.isListening());

    // The real redirect still arrives after the refused one.
    const Answer good = request(listener.port(), get(goodTarget(), hostOf(listener)));
    QCOMPARE(good.status, 200);
    QCOMPARE(callbacks.size(), 1);
    QCOMPARE(rejected.size(), 1);
}

void TestRedirectListener::noExpectedStateRefusesEveryCallback()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);

    QCOMPARE(request(listener.port(), get(goodTarget(), hostOf(listener))).status, 400);
    QCOMPARE(request(listener.port(), get(goodTarget(""), hostOf(listener))).status, 400);
    QCOMPARE(callbacks.size(), 0);
    QCOMPARE(rejected.size(), 2);
    QVERIFY(rejected.at(0).first().toString().contains(QStringLiteral("no authorization request is in progress")));
    QVERIFY(listener.isListening());
}

void TestRedirectListener::faviconIsNotReported()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);

    const Answer answer = request(listener.port(), get("/favicon.ico", hostOf(listener)));
    QCOMPARE(answer.status, 404);
    QVERIFY(answer.closed);
    QCOMPARE(rejected.size(), 0);
    QCOMPARE(callbacks.size(), 0);
    QVERIFY(listener.isListening());
}

void TestRedirectListener::silentOrStalledClientIsClosedWithoutBlocking_data()
{
    QTest::addColumn<QByteArray>("sent");
    QTest::addColumn<int>("rejections");
    // A browser's spare connection that never carries a request is not news; a head that stalls is.
    QTest::newRow("connects and sends nothing") << QByteArray() << 0;
    QTest::newRow("sends half a head and stalls")
        << QByteArray("GET /mcpscope/oauth/callback?state=st-1 HTTP/1.1\r\nHo") << 1;
}

void TestRedirectListener::silentOrStalledClientIsClosedWithoutBlocking()
{
    QFETCH(QByteArray, sent);
    QFETCH(int, rejections);

    RedirectListener listener;
    listener.setReadTimeoutMs(300);
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);

    auto silent = connectTo(listener.port());
    QVERIFY(silent);
    if (!sent.isEmpty())
        silent->write(sent);
    QSignalSpy silentClosed(silent.get(), &QTcpSocket::disconnected);

    // While it sits there, the real redirect is answered.
    const Answer good = request(listener.port(), get(goodTarget(), hostOf(listener)));
    QCOMPARE(good.status, 200);
    QCOMPARE(callbacks.size(), 1);

    // And the idle connection is closed by the listener, with nothing written to it.
    QVERIFY(silent->state() == QAbstractSocket::UnconnectedState || silentClosed.wait(15000));
    QCOMPARE(silent->readAll(), QByteArray());
    QCOMPARE(rejected.size(), rejections);
    if (rejections)
        QVERIFY(rejected.first().first().toString().contains(QStringLiteral("did not arrive complete")));
    QCOMPARE(callbacks.size(), 1);
}

void TestRedirectListener::secondCallbackIsNotDelivered()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);

    // Both connected before the first callback, so the second still reaches the listener after it stopped.
    auto first = connectTo(listener.port());
    auto second = connectTo(listener.port());
    QVERIFY(first && second);
    QCOMPARE(exchange(first.get(), get(goodTarget(), hostOf(listener))).status, 200);
    QCOMPARE(callbacks.size(), 1);
    QVERIFY(!listener.isListening());

    const Answer again = exchange(second.get(), get(goodTarget(), hostOf(listener)));
    QCOMPARE(again.status, 400);
    QCOMPARE(callbacks.size(), 1);
    QCOMPARE(rejected.size(), 1);
    QVERIFY(rejected.first().first().toString().contains(QStringLiteral("already finished")));
}

void TestRedirectListener::preferredPortIsReusedWhenFree()
{
    quint16 port = 0;
    {
        // A first run: its registration was made for this port, and a callback left the port in TIME_WAIT.
        RedirectListener first;
        QVERIFY(first.listen(0, nullptr));
        port = first.port();
        first.expectState(QStringLiteral("st-1"));
        QCOMPARE(request(port, get(goodTarget(), hostOf(first))).status, 200);
    }
    RedirectListener second;
    QString error;
    QVERIFY2(second.listen(port, &error), qPrintable(error));
    QCOMPARE(second.port(), port);
    QCOMPARE(second.redirectUri().port(), int(port));
    const auto* server = second.findChild<QTcpServer*>();
    QVERIFY(server);
    QCOMPARE(server->serverAddress(), QHostAddress(QHostAddress::LocalHost));
}

void TestRedirectListener::anotherPortIsChosenWhenThePreferredIsTaken()
{
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress(QHostAddress::LocalHost), 0));
    RedirectListener listener;
    QString error;
    QVERIFY2(listener.listen(squatter.serverPort(), &error), qPrintable(error));
    QVERIFY(listener.isListening());
    QVERIFY(listener.port() != 0);
    QVERIFY(listener.port() != squatter.serverPort());
    QCOMPARE(listener.redirectUri().port(), int(listener.port()));
    listener.expectState(QStringLiteral("st-1"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QCOMPARE(request(listener.port(), get(goodTarget(), hostOf(listener))).status, 200);
    QCOMPARE(callbacks.size(), 1);
}

QTEST_GUILESS_MAIN(TestRedirectListener)
#include "tst_redirectlistener.moc"
