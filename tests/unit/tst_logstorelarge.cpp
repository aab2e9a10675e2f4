// Large call records in the log (issue 17): a record whose answer is LargeRecordBytes or more is written,
// scanned for secrets and compressed a piece at a time, never held as one text. What the store keeps must
// be what the whole-text way keeps: the record's exact text when nothing in it is secret, and
// Redactor::redactRecord() of it otherwise, also when the secret value or the header name lies across the
// seam between two pieces.

#include "calllog/compactjsonwriter.h"
#include "calllog/logstore.h"
#include "calllog/logstoreencoder.h"
#include "calllog/logstorereader.h"
#include "calllog/redactor.h"
#include "logstorereads.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::testing;

namespace {
constexpr qsizetype TextBytes = 2 * LargeRecordBytes + 123;
const QString Secret = QStringLiteral("tok-SECRET-8a1c");

/// A finished tools/call whose answer is one text, parsed from JSON as the engine's answers are (the
/// writer reads a large answer's strings from the parsed document's storage).
CallRecord largeRecord(const QByteArray& text)
{
    CallRecord record;
    record.callId = QStringLiteral("large-1");
    record.server = QStringLiteral("alpha");
    record.transport = QStringLiteral("stdio");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("dump");
    record.startedAt = 1700000000000;
    record.endedAt = record.startedAt + 40;
    CallAttempt attempt;
    attempt.requestId = QStringLiteral("1");
    attempt.sentAt = record.startedAt;
    attempt.endedAt = record.endedAt;
    attempt.written = true;
    StdioLine answer = StdioLine::make(record.endedAt, false, QByteArrayView("{\"jsonrpc\":\"2.0\",\"id\":1}"));
    answer.size = text.size() + 100; // the whole line, as the transport counts it
    attempt.exchange.stdio.append(answer);
    record.attempts.append(attempt);
    record.outcome = CallOutcome::Success;
    record.result = QJsonDocument::fromJson("{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}").object();
    return record;
}

/// Where the text of largeRecord() starts in the record's JSON, and the first seam between two of the
/// pieces the log writes it in that falls well inside the text.
struct Seam
{
    qsizetype textStart = 0;
    qsizetype inText = 0;
};

Seam firstSeamInText(const CallRecord& record)
{
    QList<qsizetype> ends;
    qsizetype written = 0;
    CompactWriter writer(LargeRecordPiece);
    writer.setDrain([&](QByteArrayView piece) { ends.append(written += piece.size()); });
    record.writeCompactJson(writer);
    writer.finish();
    const qsizetype textStart = record.toCompactJson().indexOf("\"text\":\"x") + 8;
    for (const qsizetype end : std::as_const(ends)) {
        if (end > textStart + 64 && end < textStart + TextBytes - 64)
            return { textStart, end - textStart };
    }
    return {};
}
} // namespace

class TestLogStoreLarge : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    /// The drained writer hands over, piece by piece, exactly the text toCompactJson() gives at once,
    /// also for a string that must go the QString way ('?' could be a converted lone surrogate).
    void drainedPiecesMakeTheWholeText_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("plain") << QByteArray(TextBytes, 'x');
        QTest::newRow("question mark") << QByteArray(TextBytes / 2, 'x') + "?" + QByteArray(TextBytes / 2, 'y');
        QTest::newRow("escapes and UTF-8")
            << QByteArray(TextBytes / 2, 'x') + "\\n\\\"\xc3\xa9\\u0001" + QByteArray(TextBytes / 2, 'z');
    }

    void drainedPiecesMakeTheWholeText()
    {
        QFETCH(QByteArray, text);
        const CallRecord record = largeRecord(text);
        QVERIFY(record.answerBytes() >= LargeRecordBytes);
        QByteArray joined;
        int pieces = 0;
        CompactWriter writer(LargeRecordPiece);
        writer.setDrain([&](QByteArrayView piece) {
            QVERIFY(piece.size() <= LargeRecordPiece);
            joined.append(piece);
            ++pieces;
        });
        record.writeCompactJson(writer);
        writer.finish();
        QVERIFY(pieces > 4);
        QCOMPARE(joined, record.toCompactJson());
    }

    void storesWhatRedactionGives_data()
    {
        QTest::addColumn<QByteArray>("marker");
        QTest::addColumn<bool>("acrossSeam");
        // exact: stored byte for byte as written; gone: a secret value, which must not be stored;
        // redacted: a header name, after which the stored record is redactRecord()'s, whatever that changes.
        QTest::addColumn<QString>("expect");
        QTest::newRow("nothing secret") << QByteArray() << false << QStringLiteral("exact");
        QTest::newRow("question mark") << QByteArray("?") << false << QStringLiteral("exact");
        QTest::newRow("secret value inside a piece") << Secret.toUtf8() << false << QStringLiteral("gone");
        QTest::newRow("secret value across a seam") << Secret.toUtf8() << true << QStringLiteral("gone");
        QTest::newRow("header name across a seam") << QByteArray("Cookie: v") << true << QStringLiteral("redacted");
        QTest::newRow("user's header name across a seam")
            << QByteArray("X-API-KEY: v") << true << QStringLiteral("redacted");
    }

    void storesWhatRedactionGives()
    {
        QFETCH(QByteArray, marker);
        QFETCH(bool, acrossSeam);
        QFETCH(QString, expect);
        Redactor redactor;
        redactor.addSensitiveHeader(QStringLiteral("X-Api-Key"));
        redactor.addSecretValue(Secret);
        QByteArray text(TextBytes, 'x');
        const Seam seam = firstSeamInText(largeRecord(text));
        QVERIFY(seam.inText > 0);
        // Across: the marker starts 4 bytes before the seam ("Cook|ie", "X-AP|I-KEY", "tok-|SECRET"). Inside: well
        // clear of any seam.
        const qsizetype at = acrossSeam ? seam.inText - 4 : seam.inText + 1000;
        text.replace(at, marker.size(), marker);
        const CallRecord record = largeRecord(text);
        if (acrossSeam) {
            // Placing the marker moved no seam: the marker does straddle one.
            QCOMPARE(firstSeamInText(record).inText, seam.inText);
        }

        const QString path = m_dir.filePath(QStringLiteral("large.mcplog"));
        QFile::remove(path);
        LogStore store;
        store.setRedactor(redactor);
        QVERIFY(store.open(path));
        store.append(record);
        QVERIFY(flushAndWait(store));
        LogStoreReader reader;
        QString error;
        QVERIFY2(reader.open(path, &error), qPrintable(error));
        QByteArray stored;
        QVERIFY(reader.forEachRecordJson(
            [&](const QString&, const QByteArray& json) {
                stored = json;
                return true;
            },
            &error));
        QVERIFY2(!stored.isEmpty(), qPrintable(error));
        QCOMPARE(QJsonDocument::fromJson(stored).object(), redactor.redactRecord(record));
        if (expect == QLatin1String("exact"))
            QCOMPARE(stored, record.toCompactJson());
        if (expect == QLatin1String("gone")) {
            QVERIFY(!stored.contains(marker));
            QVERIFY(stored.contains("[redacted]"));
        }
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLogStoreLarge)
#include "tst_logstorelarge.moc"
