// Era detection (issue 16) through mcpscope-cli against three real servers over both transports:
// server-everything (legacy only: auto resolves to legacy), the SDK v2 modern ledger peer (auto resolves
// to modern) and the SDK v2 dual-era peer (it speaks both and picks the era from how the client opens:
// auto opens with server/discover, so modern; legacy opens with initialize, so legacy). `info --json`
// says the era that was used; for the dual-era peer its own ledger says which era the SDK served each
// request in, and that one `write` ran exactly once, in that era. No mock: every byte is the peers'.

#include "clirun.h"
#include "freeport.h"
#include "ledger.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

QString quoted(const QString& path)
{
    return u'"' + path + u'"';
}

QString peerScript(const QString& peer)
{
    if (peer == u"everything"_s)
        return QStringLiteral(MCPSCOPE_PEERS_DIR)
            + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s;
    return QStringLiteral(MCPSCOPE_PEERS_DIR) + u'/' + peer + u"-peer.mjs"_s;
}

/// One peer over Streamable HTTP on a free port, killed when the test row ends.
class HttpPeer
{
public:
    ~HttpPeer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    bool start(const QString& peer, const QString& ledger)
    {
        m_port = freePort();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        QStringList args { peerScript(peer) };
        if (peer == u"everything"_s) {
            env.insert(u"PORT"_s, QString::number(m_port));
            args << u"streamableHttp"_s;
        } else {
            args << u"http"_s << QString::number(m_port) << ledger;
        }
        m_process.setProcessEnvironment(env);
        m_process.setProgram(QStringLiteral(MCPSCOPE_NODE));
        m_process.setArguments(args);
        m_process.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        const QDeadlineTimer deadline(30000);
        while (!m_output.contains("listening") && !deadline.hasExpired()) {
            if (!m_process.waitForReadyRead(200) && m_process.state() != QProcess::Running)
                return false;
            m_output += m_process.readAll();
        }
        return m_output.contains("listening");
    }
    QString url() const { return u"http://127.0.0.1:%1/mcp"_s.arg(m_port); }
    const QByteArray& output() const { return m_output; }

private:
    quint16 m_port = 0;
    QProcess m_process;
    QByteArray m_output;
};

} // namespace

class TestEraDetection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void detectsTheEra_data()
    {
        QTest::addColumn<QString>("peer");
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("expected");
        for (const QString& transport : { u"stdio"_s, u"http"_s }) {
            const auto row = [&](const QString& peer, const QString& option, const QString& expected) {
                QTest::addRow("%s %s, %s", qPrintable(peer), qPrintable(transport), qPrintable(option))
                    << peer << transport << option << expected;
            };
            row(u"everything"_s, u"auto"_s, u"legacy"_s);
            row(u"modern-ledger"_s, u"auto"_s, u"modern"_s);
            row(u"dual-era"_s, u"auto"_s, u"modern"_s);
            row(u"dual-era"_s, u"legacy"_s, u"legacy"_s);
            row(u"dual-era"_s, u"modern"_s, u"modern"_s);
        }
    }

    void detectsTheEra()
    {
        QFETCH(QString, peer);
        QFETCH(QString, transport);
        QFETCH(QString, option);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        HttpPeer http;
        QStringList target;
        if (transport == u"http"_s) {
            QVERIFY2(http.start(peer, ledger), http.output().constData());
            target = { u"--url"_s, http.url() };
        } else {
            QString command = quoted(QStringLiteral(MCPSCOPE_NODE)) + u' ' + quoted(peerScript(peer)) + u" stdio"_s;
            if (peer != u"everything"_s)
                command += u' ' + quoted(ledger);
            target = { u"--stdio"_s, command };
        }

        const CliRun info
            = runCli(QStringList { u"--protocol-era"_s, option } + target + QStringList { u"--json"_s, u"info"_s });
        QVERIFY2(info.finished && info.exitCode == 0, info.report().constData());
        const QJsonObject result = QJsonDocument::fromJson(info.out.trimmed()).object().value(u"result"_s).toObject();
        QCOMPARE(result.value(u"era"_s).toString(), expected);
        QCOMPARE(
            result.value(u"protocolVersion"_s).toString(), expected == u"modern"_s ? u"2026-07-28"_s : u"2025-11-25"_s);
        if (peer != u"dual-era"_s)
            return;

        // The dual-era peer's own account: the opening request and every one after it served in that era.
        QList<QJsonObject> requests = Ledger { ledger }.events(u"request"_s);
        QVERIFY(!requests.isEmpty());
        const QString opening = requests.first().value(u"method"_s).toString();
        QCOMPARE(opening, expected == u"modern"_s ? u"server/discover"_s : u"initialize"_s);
        for (const QJsonObject& request : requests)
            QCOMPARE(request.value(u"era"_s).toString(), expected);

        const CliRun write = runCli(QStringList { u"--protocol-era"_s, option } + target
            + QStringList { u"call"_s, u"write"_s, uR"({"note":"once"})"_s });
        QVERIFY2(write.finished && write.exitCode == 0, write.report().constData());
        const Ledger book { ledger };
        QCOMPARE(book.runsOf(u"write"_s), 1);
        for (const QJsonObject& run : book.entries()) {
            if (run.value(u"tool"_s).toString() == u"write"_s)
                QCOMPARE(run.value(u"era"_s).toString(), expected);
        }
    }

    // A legacy stdio server that never answers a method it does not know (silent-legacy-peer.mjs drops
    // server/discover without a word): the probe gives up after its timeout, and the call goes on in the
    // legacy era. No timing is asserted here; bench/probe measures what the probe costs.
    void silentLegacyServerFallsBackAfterTheProbeTimeout()
    {
        const QString command = quoted(QStringLiteral(MCPSCOPE_NODE)) + u' ' + quoted(peerScript(u"silent-legacy"_s));
        const CliRun info = runCli({ u"--protocol-era"_s, u"auto"_s, u"--stdio"_s, command, u"--json"_s, u"info"_s });
        QVERIFY2(info.finished && info.exitCode == 0, info.report().constData());
        const QJsonObject result = QJsonDocument::fromJson(info.out.trimmed()).object().value(u"result"_s).toObject();
        QCOMPARE(result.value(u"era"_s).toString(), u"legacy"_s);
        QVERIFY2(result.value(u"eraReason"_s).toString().startsWith(u"no answer to server/discover within"_s),
            info.report().constData());
        QVERIFY2(info.err.contains("silent-legacy-peer: dropped server/discover"), info.report().constData());
        const CliRun call = runCli({ u"--protocol-era"_s, u"auto"_s, u"--stdio"_s, command, u"call"_s, u"hello"_s });
        QVERIFY2(call.finished && call.exitCode == 0 && call.out.trimmed() == "hello", call.report().constData());
    }

    void excludedToolIsListedAsSuchAndNotCalled()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        const QString command = quoted(QStringLiteral(MCPSCOPE_NODE)) + u' ' + quoted(peerScript(u"modern-ledger"_s))
            + u" stdio "_s + quoted(ledger);
        const CliRun tools = runCli({ u"--stdio"_s, command, u"tools"_s });
        QVERIFY2(tools.finished && tools.exitCode == 0, tools.report().constData());
        const qsizetype at = tools.out.indexOf("bad-header-tool");
        QVERIFY2(at >= 0, tools.report().constData());
        QVERIFY2(tools.out.indexOf("excluded:", at) > at, tools.report().constData());
        QVERIFY2(tools.out.contains("region-echo"), tools.report().constData());

        const CliRun call = runCli({ u"--stdio"_s, command, u"call"_s, u"bad-header-tool"_s, u"{}"_s });
        QVERIFY2(call.finished && call.exitCode == 2, call.report().constData());
        QVERIFY2(call.err.contains("'bad-header-tool' is left out of the tool list"), call.report().constData());
        QCOMPARE(Ledger { ledger }.runsOf(u"bad-header-tool"_s), 0);
    }
};

QTEST_GUILESS_MAIN(TestEraDetection)
#include "tst_eradetection.moc"
