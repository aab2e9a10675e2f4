// The scripted system browser of tests/support against the real RedirectListener: the authorization
// server's 302 is followed to the loopback callback with the Host a browser sends, and the browser
// reports the page it ended on. The slot is called by name, as QDesktopServices::openUrl calls a
// registered URL handler, so the GUI tests can hand it the app's openUrl.

#include "auth/redirectlistener.h"
#include "testbrowser.h"
#include "transport/httpwire.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

#include <memory>

using namespace mcpscope;
using mcpscope::test::TestBrowser;

namespace {

/// Stands in for an authorization server's authorization endpoint after the user has consented: it
/// answers GET /authorize with a 302 to the request's redirect_uri carrying a code, the request's state
/// (or the one the test forges) and iss, the way RFC 6749 §4.1.2 and RFC 9207 describe.
class FakeAuthorizationEndpoint : public QObject
{
public:
    FakeAuthorizationEndpoint()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                auto reader = std::make_shared<HttpWire::MessageReader>(HttpWire::MessageReader::Kind::Request);
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket, reader] {
                    reader->feed(socket->readAll());
                    if (reader->complete())
                        answer(socket, *reader);
                });
            }
        });
        m_server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    }

    QUrl authorizeUrl(const QUrl& redirectUri, const QString& state) const
    {
        QUrl url(QStringLiteral("http://127.0.0.1:%1/authorize").arg(m_server.serverPort()));
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("response_type"), QStringLiteral("code"));
        query.addQueryItem(QStringLiteral("client_id"), QStringLiteral("test-client"));
        query.addQueryItem(
            QStringLiteral("redirect_uri"), QString::fromLatin1(QUrl::toPercentEncoding(redirectUri.toString())));
        query.addQueryItem(QStringLiteral("state"), state);
        query.addQueryItem(
            QStringLiteral("code_challenge"), QStringLiteral("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
        query.addQueryItem(QStringLiteral("code_challenge_method"), QStringLiteral("S256"));
        url.setQuery(query);
        return url;
    }
    QString issuer() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

    QString forgedState; ///< when set, the redirect carries this state instead of the request's
    int status = 302; ///< another status: a page instead of the redirect
    QList<QByteArray> hosts; ///< the Host of each request

private:
    void answer(QTcpSocket* socket, const HttpWire::MessageReader& request)
    {
        hosts.append(HttpWire::header(request.headers, "Host"));
        const QUrl target = QUrl::fromEncoded("http://as.invalid" + request.target);
        const QUrlQuery query(target);
        QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + " X\r\nConnection: close\r\nContent-Length: 0\r\n";
        if (status == 302 && target.path() == QLatin1String("/authorize")) {
            QUrl location(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded));
            QUrlQuery back;
            back.addQueryItem(QStringLiteral("code"), QStringLiteral("code-123"));
            back.addQueryItem(QStringLiteral("state"),
                forgedState.isEmpty() ? query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded)
                                      : forgedState);
            back.addQueryItem(QStringLiteral("iss"), QString::fromLatin1(QUrl::toPercentEncoding(issuer())));
            location.setQuery(back);
            head += "Location: " + location.toEncoded() + "\r\n";
        }
        socket->write(head + "\r\n");
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
};

/// What QDesktopServices::openUrl does with a registered handler: invoke the named slot with the URL.
bool openLikeDesktopServices(QObject* handler, const QUrl& url)
{
    return QMetaObject::invokeMethod(handler, "open", Qt::DirectConnection, Q_ARG(QUrl, url));
}

} // namespace

class TestTestBrowser : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void followsTheRedirectToTheLoopbackListener();
    void reportsTheListenersRefusal();
    void endsOnAPageThatIsNotARedirect();
    void reportsAnUnreachableServer();
};

void TestTestBrowser::followsTheRedirectToTheLoopbackListener()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("state-abc"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);
    FakeAuthorizationEndpoint endpoint;
    TestBrowser browser;
    QSignalSpy finished(&browser, &TestBrowser::finished);

    const QUrl authorize = endpoint.authorizeUrl(listener.redirectUri(), QStringLiteral("state-abc"));
    QVERIFY(openLikeDesktopServices(&browser, authorize));
    QVERIFY(finished.wait(15000));

    QCOMPARE(finished.first().first().toInt(), 200);
    QCOMPARE(browser.finalStatus(), 200);
    QVERIFY2(browser.error().isEmpty(), qPrintable(browser.error()));
    QCOMPARE(browser.opened(), QList<QUrl> { authorize });
    QCOMPARE(browser.hops().size(), 2);
    QCOMPARE(browser.hops().at(0).url, authorize);
    QCOMPARE(browser.hops().at(0).status, 302);
    QCOMPARE(browser.hops().at(1).url.adjusted(QUrl::RemoveQuery), listener.redirectUri());
    QCOMPARE(browser.hops().at(1).status, 200);
    QVERIFY(browser.finalBody().contains("you can close this tab"));
    QCOMPARE(endpoint.hosts, QList<QByteArray> { "127.0.0.1:" + QByteArray::number(authorize.port()) });

    QCOMPARE(rejected.size(), 0);
    QCOMPARE(callbacks.size(), 1);
    const auto query = callbacks.first().first().value<QUrlQuery>();
    QCOMPARE(query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded), QStringLiteral("code-123"));
    QCOMPARE(query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded), QStringLiteral("state-abc"));
    QCOMPARE(query.queryItemValue(QStringLiteral("iss"), QUrl::FullyDecoded), endpoint.issuer());
    QVERIFY(!listener.isListening());
}

void TestTestBrowser::reportsTheListenersRefusal()
{
    RedirectListener listener;
    QVERIFY(listener.listen());
    listener.expectState(QStringLiteral("state-abc"));
    QSignalSpy callbacks(&listener, &RedirectListener::callbackReceived);
    QSignalSpy rejected(&listener, &RedirectListener::rejected);
    FakeAuthorizationEndpoint endpoint;
    endpoint.forgedState = QStringLiteral("state-from-elsewhere");
    TestBrowser browser;
    QSignalSpy finished(&browser, &TestBrowser::finished);

    QVERIFY(
        openLikeDesktopServices(&browser, endpoint.authorizeUrl(listener.redirectUri(), QStringLiteral("state-abc"))));
    QVERIFY(finished.wait(15000));
    QCOMPARE(browser.finalStatus(), 400);
    QCOMPARE(browser.hops().size(), 2);
    QCOMPARE(callbacks.size(), 0);
    QCOMPARE(rejected.size(), 1);
    QVERIFY(listener.isListening());
}

void TestTestBrowser::endsOnAPageThatIsNotARedirect()
{
    FakeAuthorizationEndpoint endpoint;
    endpoint.status = 400; // e.g. the server refuses the request (an unknown client)
    TestBrowser browser;
    QSignalSpy finished(&browser, &TestBrowser::finished);
    QVERIFY(openLikeDesktopServices(
        &browser, endpoint.authorizeUrl(QUrl(QStringLiteral("http://127.0.0.1:9/cb")), QStringLiteral("s"))));
    QVERIFY(finished.wait(15000));
    QCOMPARE(finished.first().first().toInt(), 400);
    QCOMPARE(browser.hops().size(), 1);
    QVERIFY(browser.error().isEmpty());
}

void TestTestBrowser::reportsAnUnreachableServer()
{
    quint16 port = 0;
    {
        QTcpServer probe; // a port that was free a moment ago and is closed now
        QVERIFY(probe.listen(QHostAddress(QHostAddress::LocalHost), 0));
        port = probe.serverPort();
    }
    TestBrowser browser;
    QSignalSpy finished(&browser, &TestBrowser::finished);
    browser.open(QUrl(QStringLiteral("http://127.0.0.1:%1/authorize").arg(port)));
    QVERIFY(finished.wait(15000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QCOMPARE(browser.finalStatus(), 0);
    QVERIFY(!browser.error().isEmpty());
    QVERIFY(browser.isFinished());
}

QTEST_GUILESS_MAIN(TestTestBrowser)
#include "moc_testbrowser.cpp"
#include "tst_testbrowser.moc"
