#pragma once

// Test support: a scripted "system browser" for the authorization-code flow. Given the authorization URL
// it does what a user's browser does once the user has consented: GET the URL, and while the answer is a
// redirect, GET its Location the way a browser would (Host from the URL, Accept text/html), so the last
// hop is the app's loopback RedirectListener. It reports every hop and the final page's status.
//
// In an offscreen GUI test it answers the app's QDesktopServices::openUrl:
//     mcpscope::test::TestBrowser browser;
//     QDesktopServices::setUrlHandler(QStringLiteral("http"), &browser, "open");
//     ...
//     QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
//
// The class has Q_OBJECT and this header has no .cpp: the ONE test source that includes it must also
// `#include "moc_testbrowser.cpp"` (after its own includes) so AUTOMOC generates and compiles its
// meta-object; otherwise the link fails with undefined TestBrowser::staticMetaObject.

#include "transport/httpclient.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

namespace mcpscope::test {

class TestBrowser : public QObject
{
    Q_OBJECT
public:
    struct Hop
    {
        QUrl url; ///< what was requested
        int status = 0; ///< 0: no response (error() says why)
        QUrl location; ///< the resolved Location of a redirect
    };

    explicit TestBrowser(QObject* parent = nullptr)
        : QObject(parent)
    {
        m_client.setConnectTimeoutMs(10000);
    }
    ~TestBrowser() override
    {
        if (m_reply)
            m_reply->disconnect(this);
    }

    /// Every URL open() was given, in order.
    const QList<QUrl>& opened() const { return m_opened; }
    /// The hops of the last navigation, first request first.
    const QList<Hop>& hops() const { return m_hops; }
    bool isFinished() const { return m_finished; }
    /// The status of the page the last navigation ended on; 0 when it ended without one.
    int finalStatus() const { return m_error.isEmpty() && !m_hops.isEmpty() ? m_hops.last().status : 0; }
    QByteArray finalBody() const { return m_body; }
    /// Why the last navigation ended without a page; empty when it got one.
    QString error() const { return m_error; }
    /// More redirects than this ends the navigation with an error, as browsers do (they allow about 20).
    void setMaxRedirects(int count) { m_maxRedirects = count; }

public Q_SLOTS:
    /// Starts a navigation; one still running is abandoned, like a tab that is sent elsewhere.
    void open(const QUrl& url)
    {
        m_opened.append(url);
        m_hops.clear();
        m_body.clear();
        m_error.clear();
        m_finished = false;
        ++m_generation;
        fetch(url);
    }

Q_SIGNALS:
    /// Once per navigation, when the browser shows its last page (status) or gives up (0, error()).
    void finished(int status);

private:
    void fetch(QUrl url) // a copy: it may name an element of m_hops, which grows here
    {
        if (m_reply) {
            m_reply->disconnect(this);
            m_reply->abort();
            m_reply->deleteLater();
        }
        m_hops.append(Hop { url, 0, {} });
        if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) {
            end(QStringLiteral("the browser cannot open a %1: URL").arg(url.scheme()));
            return;
        }
        HttpRequest request;
        request.url = url;
        request.redirects = HttpRequest::Redirects::Manual; // each hop is seen and recorded here
        request.timeoutMs = 15000;
        request.headers.append({ QByteArrayLiteral("User-Agent"),
            QByteArrayLiteral("Mozilla/5.0 (X11; Linux x86_64) McpScopeTestBrowser/1.0") });
        request.headers.append({ QByteArrayLiteral("Accept"),
            QByteArrayLiteral("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8") });
        request.headers.append({ QByteArrayLiteral("Accept-Language"), QByteArrayLiteral("en") });
        m_reply = m_client.send(std::move(request));
        const int generation = m_generation;
        HttpReply* reply = m_reply;
        connect(reply, &HttpReply::readyRead, this, [this, reply] { m_body += reply->readAll(); });
        connect(reply, &HttpReply::finished, this, [this, reply, generation] {
            reply->deleteLater();
            if (generation != m_generation)
                return;
            m_reply = nullptr;
            m_body += reply->readAll();
            if (reply->status() == 0) {
                end(QStringLiteral("no page from %1: %2").arg(reply->url().toDisplayString(), reply->errorString()));
                return;
            }
            Hop& hop = m_hops.last();
            hop.status = reply->status();
            const QByteArray location = reply->header("Location");
            const bool redirect
                = hop.status == 301 || hop.status == 302 || hop.status == 303 || hop.status == 307 || hop.status == 308;
            if (!redirect || location.isEmpty()) {
                end({});
                return;
            }
            hop.location = reply->url().resolved(QUrl::fromEncoded(location));
            if (m_hops.size() > m_maxRedirects) {
                end(QStringLiteral("more than %1 redirects").arg(m_maxRedirects));
                return;
            }
            m_body.clear();
            fetch(hop.location);
        });
    }

    void end(const QString& error)
    {
        m_error = error;
        m_finished = true;
        Q_EMIT finished(finalStatus());
    }

    HttpClient m_client;
    QPointer<HttpReply> m_reply;
    QList<QUrl> m_opened;
    QList<Hop> m_hops;
    QByteArray m_body;
    QString m_error;
    int m_maxRedirects = 20;
    int m_generation = 0;
    bool m_finished = false;
};

} // namespace mcpscope::test
