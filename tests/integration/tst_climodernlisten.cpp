// subscriptions/listen (2026-07-28, issue 16) through mcpscope-cli against the SDK v2 modern ledger peer
// over Streamable HTTP: `subscribe URI` opens a listen stream whose filter names the resource, and an
// update that another client causes (the peer's `touch` tool) arrives on it, routed by subscriptionId.
// When the server goes away and comes back on the same port, the stream is listened to again with
// backoff and updates arrive again. No mock: the peer and its SDK produce every byte.

#include "clirun.h"
#include "freeport.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

constexpr auto UpdateLine = "notifications/resources/updated  ledger://counter";

/// The modern ledger peer over HTTP on a fixed port, restartable on the same port.
class HttpPeer
{
public:
    HttpPeer(quint16 port, QString ledger)
        : m_port(port)
        , m_ledger(std::move(ledger))
    { }
    ~HttpPeer() { stop(); }

    bool start()
    {
        m_process.setProgram(QStringLiteral(MCPSCOPE_NODE));
        m_process.setArguments({ QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/modern-ledger-peer.mjs"_s, u"http"_s,
            QString::number(m_port), m_ledger });
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        QByteArray out;
        const QDeadlineTimer deadline(30000);
        while (!out.contains("listening") && !deadline.hasExpired()) {
            if (!m_process.waitForReadyRead(200) && m_process.state() != QProcess::Running)
                return false;
            out += m_process.readAll();
        }
        return out.contains("listening");
    }
    void stop()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    QString url() const { return u"http://127.0.0.1:%1/mcp"_s.arg(m_port); }

private:
    quint16 m_port;
    QString m_ledger;
    QProcess m_process;
};

/// Reads a running CLI's stdout until it holds text (or the bound runs out); returns all read so far.
bool readUntil(QProcess& process, QByteArray& out, const QByteArray& text, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!out.contains(text) && !deadline.hasExpired() && process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
    }
    return out.contains(text);
}

void touch(const QString& url)
{
    runCli({ u"--url"_s, url, u"call"_s, u"touch"_s, uR"({"uri":"ledger://counter"})"_s });
}

} // namespace

class TestCliModernListen : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void updatesArriveOnTheListenStream()
    {
        QTemporaryDir dir;
        HttpPeer peer(freePort(), dir.filePath(u"ledger.jsonl"_s));
        QVERIFY(peer.start());
        QProcess subscriber;
        startCli(subscriber, { u"--url"_s, peer.url(), u"subscribe"_s, u"ledger://counter"_s, u"--for"_s, u"6"_s });
        QByteArray out;
        QVERIFY2(readUntil(subscriber, out, "subscribed to ledger://counter", CliRunTimeoutMs),
            QByteArray(out + subscriber.readAllStandardError()).constData());
        touch(peer.url());
        const CliRun run = finishCli(subscriber);
        out += run.out;
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        // Exactly the one update the touch caused: an old stream's copy would be a second line.
        QCOMPARE(out.count(UpdateLine), 1);
        QVERIFY2(out.contains("unsubscribed from ledger://counter after 1 update(s)"), out.constData());
        QVERIFY2(!run.err.contains("dropped"), run.report().constData());
    }

    void theStreamIsListenedToAgainAfterTheServerReturns()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        const quint16 port = freePort();
        auto peer = std::make_unique<HttpPeer>(port, ledger);
        QVERIFY(peer->start());
        QProcess subscriber;
        startCli(subscriber, { u"--url"_s, peer->url(), u"subscribe"_s, u"ledger://counter"_s, u"--for"_s, u"20"_s });
        QByteArray out;
        QVERIFY2(readUntil(subscriber, out, "subscribed to ledger://counter", CliRunTimeoutMs),
            QByteArray(out + subscriber.readAllStandardError()).constData());
        peer.reset(); // the stream drops with the server
        peer = std::make_unique<HttpPeer>(port, ledger);
        QVERIFY(peer->start());
        // The re-listen waits out its backoff first; touch until an update shows it is back.
        const QDeadlineTimer deadline(15000);
        while (!out.contains(UpdateLine) && !deadline.hasExpired() && subscriber.state() != QProcess::NotRunning) {
            touch(peer->url());
            readUntil(subscriber, out, UpdateLine, 500);
        }
        const CliRun run = finishCli(subscriber);
        out += run.out;
        QVERIFY2(run.finished && run.exitCode == 0, QByteArray(out + "\n" + run.report()).constData());
        QVERIFY2(out.contains(UpdateLine), QByteArray(out + "\n" + run.report()).constData());
        QVERIFY2(run.err.contains("subscriptions/listen stream") && run.err.contains("listening again in 500 ms"),
            run.report().constData());
    }
};

QTEST_GUILESS_MAIN(TestCliModernListen)
#include "tst_climodernlisten.moc"
