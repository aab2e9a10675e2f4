// mcpscope-cli's resource commands as a user runs them: subscribe URI --for SECONDS against
// server-everything (subscribe and unsubscribe, each a call record in --log, exit 0 after the time) and
// against tests/peers/image-resources.mjs (which sends an update every 300 ms while subscribed: each is
// printed with its time), and read --out writing a blob to a file.

#include "clirun.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

QString quoted(const QString& path)
{
    return u'"' + path + u'"';
}

QString everythingCommand()
{
    return quoted(QStringLiteral(MCPSCOPE_NODE)) + u' '
        + quoted(QStringLiteral(MCPSCOPE_PEERS_DIR)
            + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s)
        + u" stdio"_s;
}

QString imageCommand()
{
    return quoted(QStringLiteral(MCPSCOPE_NODE)) + u' '
        + quoted(QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/image-resources.mjs"_s);
}

QStringList methodsIn(const QString& logPath)
{
    QFile log(logPath);
    if (!log.open(QIODevice::ReadOnly))
        return {};
    QStringList methods;
    for (const QByteArray& line : log.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            methods.append(QJsonDocument::fromJson(line).object().value("method"_L1).toString());
    }
    return methods;
}

} // namespace

class TestCliSubscribe : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void subscribeForSecondsAgainstEverything()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"calls.jsonl"_s);
        const QString uri = u"demo://resource/static/document/features.md"_s;
        const CliRun run
            = runCli({ u"--stdio"_s, everythingCommand(), u"--log"_s, log, u"subscribe"_s, uri, u"--for"_s, u"1.5"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.startsWith(u"subscribed to %1 for 1.5 s\n"_s.arg(uri)), run.report().constData());
        QVERIFY2(out.contains(u"unsubscribed from %1 after "_s.arg(uri)), run.report().constData());
        // Both requests went through the engine: each has its call record, named by its method.
        const QStringList methods = methodsIn(log);
        QVERIFY2(methods.contains(u"resources/subscribe"_s) && methods.contains(u"resources/unsubscribe"_s),
            qPrintable(methods.join(u", "_s)));
        QVERIFY(methods.indexOf(u"resources/subscribe"_s) < methods.indexOf(u"resources/unsubscribe"_s));
    }

    void printsEachUpdateWithItsTime()
    {
        const QString uri = u"demo://image/gradient.png"_s;
        const qint64 started = QDateTime::currentMSecsSinceEpoch();
        const CliRun run = runCli(
            { u"--stdio"_s, imageCommand(), u"--env"_s, u"UPDATE_MS=300"_s, u"subscribe"_s, uri, u"--for"_s, u"2"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const QStringList lines = QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts);
        static const QRegularExpression updateLine(
            u"^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3})  notifications/resources/updated  (.+)$"_s);
        int updates = 0;
        for (const QString& line : lines) {
            const QRegularExpressionMatch match = updateLine.match(line);
            if (!match.hasMatch())
                continue;
            ++updates;
            QCOMPARE(match.captured(2), uri);
            const QDateTime at = QDateTime::fromString(match.captured(1), Qt::ISODateWithMs);
            QVERIFY(at.isValid());
            QVERIFY(at.toMSecsSinceEpoch() >= started - 1000);
        }
        QVERIFY2(updates >= 2, run.report().constData());
        QCOMPARE(lines.last(), u"unsubscribed from %1 after %2 update(s)"_s.arg(uri).arg(updates));

        // --json: one object per update, then the command's own.
        const CliRun json = runCli({ u"--json"_s, u"--stdio"_s, imageCommand(), u"--env"_s, u"UPDATE_MS=300"_s,
            u"subscribe"_s, uri, u"--for"_s, u"1.2"_s });
        QVERIFY2(json.finished && json.exitCode == 0, json.report().constData());
        const QList<QJsonObject> objects = json.objects();
        QVERIFY2(objects.size() >= 2, json.report().constData());
        QCOMPARE(objects.first().value("event"_L1).toString(), u"updated"_s);
        QCOMPARE(objects.first().value("uri"_L1).toString(), uri);
        QCOMPARE(objects.last().value("command"_L1).toString(), u"subscribe"_s);
        QCOMPARE(objects.last().value("ok"_L1).toBool(), true);
        QCOMPARE(objects.last().value("updates"_L1).toInt(), int(objects.size() - 1));
    }

    void forIsASubscribeOptionOfSeconds()
    {
        // Checked before any server starts: --for belongs to subscribe, and is a positive number of seconds.
        const CliRun misplaced = runCli({ u"--stdio"_s, everythingCommand(), u"read"_s, u"x"_s, u"--for"_s, u"1"_s });
        QCOMPARE(misplaced.exitCode, 2);
        QVERIFY2(misplaced.err.contains("--for is for the subscribe command"), misplaced.report().constData());
        const CliRun zero = runCli({ u"--stdio"_s, everythingCommand(), u"subscribe"_s, u"x"_s, u"--for"_s, u"0"_s });
        QCOMPARE(zero.exitCode, 2);
        QVERIFY2(zero.err.contains("--for"), zero.report().constData());
    }

    void readOutWritesTheBlob()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"gradient.png"_s);
        const CliRun run
            = runCli({ u"--stdio"_s, imageCommand(), u"read"_s, u"demo://image/gradient.png"_s, u"--out"_s, path });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        QVERIFY2(run.out.contains("(blob: image/png, "), run.report().constData());
        QVERIFY2(run.out.contains(QByteArray("(written to " + path.toUtf8() + ")")), run.report().constData());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray png = file.readAll();
        QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
        QVERIFY2(
            run.out.contains(QByteArray(", " + QByteArray::number(png.size()) + " bytes)")), run.report().constData());
    }
};

QTEST_GUILESS_MAIN(TestCliSubscribe)
#include "tst_clisubscribe.moc"
