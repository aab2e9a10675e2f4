// Large tool results in the result view (issue 17, "a 20 MB result shown with no GUI stall"): text blocks
// and raw JSON over the limits go to a LargeTextView, cut into rows on a worker, and nothing of the
// text is lost: selecting all and copying gives back the exact text, line breaks included. The records
// are built here, as the engine hands them to the view; bench_appcalls measures the same path against
// a real stdio peer with a 20 MB answer.

#include "result/largetextview.h"
#include "result/resultview.h"

#include <QApplication>
#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace mcpscope;

namespace {

CallRecord textRecord(const QStringList& texts)
{
    QJsonArray content;
    for (const QString& text : texts)
        content.append(
            QJsonObject { { QStringLiteral("type"), QStringLiteral("text") }, { QStringLiteral("text"), text } });
    CallRecord record;
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("big");
    record.outcome = CallOutcome::Success;
    record.result = QJsonObject { { QStringLiteral("content"), content } };
    return record;
}

/// As the engine records a stdio answer of `bytes` bytes (only its size matters to the view).
void addAnswerOnTheWire(CallRecord& record, qint64 bytes)
{
    CallAttempt attempt;
    StdioLine line;
    line.outgoing = false;
    line.size = bytes;
    line.truncated = true;
    attempt.exchange.stdio.append(line);
    record.attempts.append(attempt);
}

/// A text over ResultView::LargeTextChars with CRLF and LF line breaks, a line of two-byte characters
/// longer than a row, and no break at its end.
QString largeText()
{
    QString text = QStringLiteral("first line\r\nsecond \"quoted\" <b>line</b>\n");
    for (int i = 0; i < 30000; ++i)
        text += QStringLiteral("row %1 of a long listing\n").arg(i);
    text += QString(5000, QChar(0x00e9)); // é: 10,000 bytes of UTF-8 on one line
    text += QStringLiteral("\nthe end, without a line break");
    return text;
}

void waitRendered(ResultView& view)
{
    QTRY_VERIFY_WITH_TIMEOUT(view.renderedJob() == view.currentJob(), 20000);
}

} // namespace

class TestLargeText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void splitCutsRowsAtCharacters()
    {
        const QByteArray utf8 = largeText().toUtf8();
        const LargeTextView::Rows rows = LargeTextView::split(utf8);
        QCOMPARE(rows.text, utf8);
        QCOMPARE(rows.starts.first(), qsizetype(0));
        // 2 + 30,000 lines, the é line in three rows (4,096 + 4,096 + 1,809 bytes with its break), the end.
        QCOMPARE(rows.starts.size(), qsizetype(2 + 30000 + 3 + 1));
        QCOMPARE(rows.longestRow, LargeTextView::RowBytes);
        for (qsizetype i = 0; i < rows.starts.size(); ++i) {
            const qsizetype end = i + 1 < rows.starts.size() ? rows.starts.at(i + 1) : utf8.size();
            QVERIFY(end - rows.starts.at(i) <= LargeTextView::RowBytes);
            QVERIFY2((uchar(utf8.at(rows.starts.at(i))) & 0xC0) != 0x80, "no row starts inside a character");
        }

        LargeTextView view;
        view.setRows(rows);
        QCOMPARE(view.rowText(0), QStringLiteral("first line"));
        QCOMPARE(view.rowText(1), QStringLiteral("second \"quoted\" <b>line</b>"));
        QCOMPARE(view.rowText(30002), QString(2048, QChar(0x00e9)));
        QVERIFY(!view.rowEndsLine(30002));
        QVERIFY(view.rowEndsLine(30004));
        QCOMPARE(view.rowText(view.rowCount() - 1), QStringLiteral("the end, without a line break"));
        view.selectAll();
        QCOMPARE(view.selectedText(), largeText());
    }

    void mouseAndKeysSelectAndCopy()
    {
        LargeTextView view;
        view.resize(600, 300);
        view.setRows(LargeTextView::split("alpha\nbeta\ngamma"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto at = [&view](qsizetype row, qsizetype column) {
            const QRect cell = view.characterRect({ row, column });
            return QPoint(cell.left() + 1, cell.center().y());
        };
        QTest::mousePress(view.viewport(), Qt::LeftButton, {}, at(0, 2));
        QMouseEvent move(QEvent::MouseMove, at(1, 3), view.viewport()->mapToGlobal(at(1, 3)), Qt::NoButton,
            Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view.viewport(), &move);
        QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, at(1, 3));
        QCOMPARE(view.selectedText(), QStringLiteral("pha\nbet"));

        QApplication::clipboard()->clear();
        QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("pha\nbet"));
        QTest::keyClick(&view, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("alpha\nbeta\ngamma"));
    }

    // The answer's size is not known (a record without its wire exchange): the text is decoded at once,
    // and only a large one waits for the worker.
    void largeTextBlockWithoutTheWire()
    {
        const QString small = QStringLiteral("a <small> block");
        const CallRecord record = textRecord({ small, largeText() });
        ResultView view;
        view.showRecord(record, nullptr);
        waitRendered(view);
        auto* large = view.findChild<LargeTextView*>(QStringLiteral("largeText"));
        QVERIFY(large);
        large->selectAll();
        QCOMPARE(large->selectedText(), largeText());
        bool smallShown = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            smallShown = smallShown || label->text() == small.toHtmlEscaped();
        QVERIFY(smallShown);

        // The raw JSON is over LargeRawBytes as well: the whole result, indented, in a LargeTextView.
        auto* raw = view.findChild<LargeTextView*>(QStringLiteral("rawLarge"));
        QVERIFY(raw);
        QCOMPARE(raw->utf8(), QJsonDocument(record.result.toObject()).toJson(QJsonDocument::Indented));
        QVERIFY(view.findChild<QPlainTextEdit*>()->toPlainText().isEmpty());

        // The next result starts afresh, with a small raw JSON in the plain editor.
        view.showRecord(textRecord({ small }), nullptr);
        waitRendered(view);
        QVERIFY(!view.findChild<LargeTextView*>(QStringLiteral("largeText")));
        QCOMPARE(raw->rowCount(), qsizetype(0));
        QVERIFY(view.findChild<QPlainTextEdit*>()->toPlainText().contains(QStringLiteral("a <small> block")));
    }

    // A large answer on the wire: every text block is decoded on the worker; until then each waits in
    // its own slot, in order, saying what it lays out.
    void largeAnswerDecodesTextOnTheWorker()
    {
        CallRecord record = textRecord({ QStringLiteral("before"), largeText(), QStringLiteral("after & done") });
        addAnswerOnTheWire(record, 20'000'000);
        ResultView view;
        view.showRecord(record, nullptr);
        QStringList waiting;
        for (const QLabel* label : view.findChildren<QLabel*>()) {
            if (label->objectName().isEmpty() && label->text().startsWith(QStringLiteral("Laying out")))
                waiting.append(label->text());
        }
        QCOMPARE(waiting.size(), 3);
        QVERIFY2(waiting.first().contains(QStringLiteral("MB")), qPrintable(waiting.first()));
        waitRendered(view);

        QStringList labels;
        for (const QLabel* label : view.findChildren<QLabel*>()) {
            if (!label->text().isEmpty() && label->objectName().isEmpty())
                labels.append(label->text());
        }
        QVERIFY2(labels.contains(QStringLiteral("before")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("after &amp; done")), qPrintable(labels.join(u'|')));
        for (const QString& label : std::as_const(labels))
            QVERIFY2(!label.startsWith(QStringLiteral("Laying out")), qPrintable(label));
        const QList<LargeTextView*> large = view.findChildren<LargeTextView*>(QStringLiteral("largeText"));
        QCOMPARE(large.size(), 1);
        large.first()->selectAll();
        QCOMPARE(large.first()->selectedText(), largeText());
    }

    // A large answer's Raw JSON, as large as the answer, is only written once its tab opens; with the tab
    // open, the next large answer's is written at once.
    void largeAnswerRawJsonWaitsForItsTab()
    {
        CallRecord record = textRecord({ largeText() });
        addAnswerOnTheWire(record, 20'000'000);
        ResultView view;
        view.showRecord(record, nullptr);
        waitRendered(view);
        auto* raw = view.findChild<LargeTextView*>(QStringLiteral("rawLarge"));
        QVERIFY(raw);
        QVERIFY(view.rawDeferred());
        QCOMPARE(raw->rowCount(), qsizetype(0));
        const auto* waitingLabel = view.findChild<QLabel*>(QStringLiteral("rawWaiting"));
        QVERIFY(waitingLabel);
        QVERIFY2(waitingLabel->text().contains(QStringLiteral("20.0 MB")), qPrintable(waitingLabel->text()));

        QSignalSpy rawShown(&view, &ResultView::rawRendered);
        view.findChild<QTabWidget*>()->setCurrentIndex(2);
        QVERIFY(!view.rawDeferred());
        QVERIFY(view.rawRendering());
        QVERIFY(rawShown.wait(30000));
        QCOMPARE(raw->utf8(), QJsonDocument(record.result.toObject()).toJson(QJsonDocument::Indented));
        QVERIFY(raw->isVisibleTo(&view));

        CallRecord next = textRecord({ largeText(), QStringLiteral("next") });
        addAnswerOnTheWire(next, 20'000'000);
        view.showRecord(next, nullptr);
        QVERIFY(!view.rawDeferred());
        waitRendered(view);
        QCOMPARE(raw->utf8(), QJsonDocument(next.result.toObject()).toJson(QJsonDocument::Indented));
        QCOMPARE(rawShown.count(), 1);
    }
};

QTEST_MAIN(TestLargeText)
#include "tst_largetext.moc"
