// The server requests panel (issue 15), driven with QTest against the real server-everything over stdio:
// sampling answered and rejected, a form elicitation with every field filled (checked against what the
// server echoes back), a required field that blocks Accept, URL elicitations declined and accepted with
// the browser opener replaced by a recorder (and a loopback listener proving nothing fetched the URL),
// the -32042 error path, the per-server canned reply, and each request and answer on the call's timeline.

#include "calllog/callrecord.h"
#include "calllog/callsummary.h"
#include "composer/schemaform.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/serverrequestqueue.h"
#include "guiconnect.h"
#include "guienvironment.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/workspacesession.h"
#include "peerprocess.h"
#include "requests/elicitationeditor.h"
#include "requests/samplingeditor.h"
#include "requests/serverrequestsdock.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <memory>
#include <optional>

using namespace mcpscope;

namespace {

const QString Server = QStringLiteral("everything");

QJsonObject everythingStdio(const QJsonObject& extra = {})
{
    QJsonObject server { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
    for (auto it = extra.begin(); it != extra.end(); ++it)
        server.insert(it.key(), it.value());
    return server;
}

QString resultText(const CallRecord& record)
{
    QString text;
    for (const QJsonValue& block : record.result.toObject().value(QLatin1String("content")).toArray())
        text += block.toObject().value(QLatin1String("text")).toString() + QLatin1Char('\n');
    return text;
}

/// The JSON after "Raw result: " in server-everything's elicitation answer: what the server received.
QJsonObject rawResult(const CallRecord& record)
{
    const QString text = resultText(record);
    const qsizetype at = text.indexOf(QLatin1String("Raw result: "));
    if (at < 0)
        return {};
    return QJsonDocument::fromJson(text.mid(at + 12).toUtf8()).object();
}

int countEvents(const CallRecord& record, const QString& prefix)
{
    int n = 0;
    for (const CallEvent& event : record.events)
        n += event.kind == CallSummary::ServerRequestEventKind && event.text.startsWith(prefix);
    return n;
}

} // namespace

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestServerRequests : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void samplingApprovedThroughPanel();
    void samplingRejected();
    void twoRequestsQueueWithCount();
    void elicitationFormEveryField();
    void elicitationRequiredFieldBlocksAccept();
    void urlElicitationDeclinedThenAccepted();
    void urlElicitationRequiredError();
    void urlElicitationCompletedByServer();
    void cannedReplyAnswersWithoutPanel();

private:
    ServerConnection* connectEverything(const QJsonObject& extra = {}) { return connectServer(everythingStdio(extra)); }
    ServerConnection* connectServer(const QJsonObject& server);
    /// Starts a tools/call through the engine; the record lands in *record when it ends.
    void startCall(const QString& tool, const QJsonObject& arguments, std::optional<CallRecord>* record);
    template <typename Editor> Editor* waitForEditor();
    QPushButton* button(const QString& name) const;

    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QTemporaryDir> m_scratch;
    QList<QUrl> m_opened;
};

void TestServerRequests::initTestCase()
{
    QVERIFY(test::scratchConfigDir().isValid());
    test::useScratchSettings(QStringLiteral("tst_serverrequests"));
    QVERIFY2(QFile::exists(test::everythingScript()), qPrintable(test::everythingScript()));
}

void TestServerRequests::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_window = std::make_unique<MainWindow>();
    m_opened.clear();
    m_window->serverRequestsDock()->setUrlOpener([this](const QUrl& url) {
        m_opened.append(url);
        return true;
    });
}

void TestServerRequests::cleanup()
{
    m_window.reset();
    m_scratch.reset();
}

ServerConnection* TestServerRequests::connectServer(const QJsonObject& server)
{
    const QJsonObject workspace { { QStringLiteral("mcpscopeWorkspace"), 1 },
        { QStringLiteral("servers"), QJsonObject { { Server, server } } } };
    QFile file(m_scratch->filePath(QStringLiteral("workspace.json")));
    if (!file.open(QIODevice::WriteOnly))
        return nullptr;
    file.write(QJsonDocument(workspace).toJson());
    file.close();
    if (!m_window->openWorkspace(file.fileName()))
        return nullptr;
    m_window->resize(1440, 900);
    m_window->show();
    return test::selectAndConnect(m_window.get(), Server);
}

void TestServerRequests::startCall(const QString& tool, const QJsonObject& arguments, std::optional<CallRecord>* record)
{
    m_window->engine()->call(Server, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } }, {},
        [record](const CallRecord& r) { *record = r; });
}

template <typename Editor> Editor* TestServerRequests::waitForEditor()
{
    ServerRequestsDock* dock = m_window->serverRequestsDock();
    Editor* editor = nullptr;
    (void)QTest::qWaitFor(
        [&] {
            editor = qobject_cast<Editor*>(dock->currentEditor());
            return editor != nullptr;
        },
        20000);
    return editor;
}

QPushButton* TestServerRequests::button(const QString& name) const
{
    QWidget* editor = m_window->serverRequestsDock()->currentEditor();
    return editor ? editor->findChild<QPushButton*>(name) : nullptr;
}

void TestServerRequests::samplingApprovedThroughPanel()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> record;
    startCall(QStringLiteral("trigger-sampling-request"),
        { { QStringLiteral("prompt"), QStringLiteral("Name a colour") } }, &record);
    auto* editor = waitForEditor<SamplingEditor>();
    QVERIFY(editor);
    ServerRequestsDock* dock = m_window->serverRequestsDock();
    QVERIFY(dock->isVisible());
    QCOMPARE(dock->windowTitle(), QStringLiteral("Server Requests (1)"));
    // The request in full: its message, system prompt and maxTokens.
    const QString shown = editor->findChild<QTextBrowser*>(QStringLiteral("samplingRequest"))->toPlainText();
    QVERIFY2(shown.contains(QStringLiteral("Name a colour")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("You are a helpful test server.")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("100")), qPrintable(shown));

    auto* approve = button(QStringLiteral("samplingApprove"));
    QVERIFY(approve);
    QVERIFY(!approve->isEnabled()); // nothing written yet
    auto* text = editor->findChild<QPlainTextEdit*>(QStringLiteral("samplingReplyText"));
    text->setFocus();
    QTest::keyClicks(text, QStringLiteral("Teal, obviously."));
    auto* model = editor->findChild<QLineEdit*>(QStringLiteral("samplingModel"));
    model->selectAll();
    QTest::keyClicks(model, QStringLiteral("hand-written-1"));
    QVERIFY(approve->isEnabled());
    QTest::mouseClick(approve, Qt::LeftButton);

    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    QCOMPARE(record->outcome, CallOutcome::Success);
    const QString result = resultText(*record);
    QVERIFY2(result.contains(QStringLiteral("Teal, obviously.")), qPrintable(result));
    QVERIFY2(result.contains(QStringLiteral("hand-written-1")), qPrintable(result));
    QVERIFY2(result.contains(QStringLiteral("\"stopReason\": \"endTurn\"")), qPrintable(result));
    // The call's timeline has the request and the answer, once each.
    QCOMPARE(countEvents(*record, QStringLiteral("sampling/createMessage from the server")), 1);
    QCOMPARE(countEvents(*record, QStringLiteral("McpScope answered sampling/createMessage: assistant \"Teal")), 1);
    QCOMPARE(m_window->session()->serverRequests()->pending().size(), 0);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Server Requests"));
}

void TestServerRequests::samplingRejected()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> record;
    startCall(
        QStringLiteral("trigger-sampling-request"), { { QStringLiteral("prompt"), QStringLiteral("No") } }, &record);
    QVERIFY(waitForEditor<SamplingEditor>());
    QTest::mouseClick(button(QStringLiteral("samplingReject")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    // The server's tool fails with the error it got: the user-rejected one.
    const QString said = QString::fromUtf8(QJsonDocument(record->toJson()).toJson());
    QVERIFY2(said.contains(QStringLiteral("User rejected sampling request")), qPrintable(said));
    QCOMPARE(countEvents(*record, QStringLiteral("McpScope answered sampling/createMessage with error -1")), 1);
}

void TestServerRequests::twoRequestsQueueWithCount()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> first;
    std::optional<CallRecord> second;
    startCall(
        QStringLiteral("trigger-sampling-request"), { { QStringLiteral("prompt"), QStringLiteral("one") } }, &first);
    startCall(QStringLiteral("trigger-elicitation-request"), {}, &second);
    ServerRequestsDock* dock = m_window->serverRequestsDock();
    QTRY_COMPARE_WITH_TIMEOUT(dock->list()->count(), 2, 20000);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Server Requests (2)"));
    QCOMPARE(dock->findChild<QLabel*>(QStringLiteral("serverRequestCount"))->text(),
        QStringLiteral("2 request(s) waiting for you."));
    // The first one stays in front while the second waits; each keeps its own editor.
    QVERIFY(qobject_cast<SamplingEditor*>(dock->currentEditor()));
    dock->list()->setCurrentRow(1);
    QVERIFY(qobject_cast<ElicitationEditor*>(dock->currentEditor()));
    QTest::mouseClick(button(QStringLiteral("elicitationCancel")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(second.has_value(), 20000);
    QCOMPARE(rawResult(*second).value(QLatin1String("action")).toString(), QStringLiteral("cancel"));
    QCOMPARE(dock->list()->count(), 1);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Server Requests (1)"));
    QVERIFY(qobject_cast<SamplingEditor*>(dock->currentEditor()));
    QTest::mouseClick(button(QStringLiteral("samplingReject")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(first.has_value(), 20000);
    QCOMPARE(dock->list()->count(), 0);
}

void TestServerRequests::elicitationFormEveryField()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> record;
    startCall(QStringLiteral("trigger-elicitation-request"), {}, &record);
    auto* editor = waitForEditor<ElicitationEditor>();
    QVERIFY(editor);
    SchemaForm* form = editor->form();
    QVERIFY(form);
    auto line
        = [form](const char* key) { return form->findChild<QLineEdit*>(QStringLiteral("args.") + QLatin1String(key)); };
    auto combo
        = [form](const char* key) { return form->findChild<QComboBox*>(QStringLiteral("args.") + QLatin1String(key)); };
    auto list = [form](const char* key) {
        return form->findChild<QListWidget*>(QStringLiteral("args.") + QLatin1String(key));
    };
    // Defaults are filled in before the user touches anything.
    QCOMPARE(line("firstLine")->text(), QStringLiteral("It was a dark and stormy night."));
    QCOMPARE(line("integer")->text(), QStringLiteral("42"));
    QCOMPARE(line("number")->text(), QStringLiteral("3.14"));
    QCOMPARE(combo("titledSingleSelectEnum")->currentText(), QStringLiteral("Superman"));
    QCOMPARE(combo("legacyTitledEnum")->currentText(), QStringLiteral("Cats"));
    QCOMPARE(list("titledMultipleSelectEnum")->item(0)->checkState(), Qt::Checked);

    QTest::keyClicks(line("name"), QStringLiteral("Ada Lovelace"));
    form->findChild<QCheckBox*>(QStringLiteral("args.check"))->setChecked(true);
    line("firstLine")->clear();
    QTest::keyClicks(line("firstLine"), QStringLiteral("Call me Ishmael."));
    QTest::keyClicks(line("email"), QStringLiteral("ada@example.org"));
    QTest::keyClicks(line("homepage"), QStringLiteral("https://example.org/ada"));
    QTest::keyClicks(line("birthdate"), QStringLiteral("1815-12-10"));
    line("integer")->clear();
    QTest::keyClicks(line("integer"), QStringLiteral("7"));
    line("number")->clear();
    QTest::keyClicks(line("number"), QStringLiteral("2.5"));
    combo("untitledSingleSelectEnum")->setCurrentText(QStringLiteral("Joey"));
    list("untitledMultipleSelectEnum")->item(1)->setCheckState(Qt::Checked); // Piano, next to the default Guitar
    combo("titledSingleSelectEnum")->setCurrentText(QStringLiteral("Wonder Woman"));
    list("titledMultipleSelectEnum")->item(2)->setCheckState(Qt::Checked); // Trout
    combo("legacyTitledEnum")->setCurrentText(QStringLiteral("Birds"));

    QTest::mouseClick(button(QStringLiteral("elicitationAccept")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    QCOMPARE(record->outcome, CallOutcome::Success);
    QVERIFY(!CallSummary::declinedInput(*record));
    const QJsonObject received = rawResult(*record);
    QCOMPARE(received.value(QLatin1String("action")).toString(), QStringLiteral("accept"));
    const QJsonObject expected {
        { QStringLiteral("name"), QStringLiteral("Ada Lovelace") },
        { QStringLiteral("check"), true },
        { QStringLiteral("firstLine"), QStringLiteral("Call me Ishmael.") },
        { QStringLiteral("email"), QStringLiteral("ada@example.org") },
        { QStringLiteral("homepage"), QStringLiteral("https://example.org/ada") },
        { QStringLiteral("birthdate"), QStringLiteral("1815-12-10") },
        { QStringLiteral("integer"), 7 },
        { QStringLiteral("number"), 2.5 },
        { QStringLiteral("untitledSingleSelectEnum"), QStringLiteral("Joey") },
        { QStringLiteral("untitledMultipleSelectEnum"),
            QJsonArray { QStringLiteral("Guitar"), QStringLiteral("Piano") } },
        { QStringLiteral("titledSingleSelectEnum"), QStringLiteral("hero-3") },
        { QStringLiteral("titledMultipleSelectEnum"),
            QJsonArray { QStringLiteral("fish-1"), QStringLiteral("fish-3") } },
        { QStringLiteral("legacyTitledEnum"), QStringLiteral("pet-3") },
    };
    QCOMPARE(received.value(QLatin1String("content")).toObject(), expected);
    QCOMPARE(countEvents(*record, QStringLiteral("McpScope answered elicitation/create: accept with 13 field(s)")), 1);
}

void TestServerRequests::elicitationRequiredFieldBlocksAccept()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> record;
    startCall(QStringLiteral("trigger-elicitation-request"), {}, &record);
    auto* editor = waitForEditor<ElicitationEditor>();
    QVERIFY(editor);
    // "name" is required: Accept shows why and sends nothing.
    QTest::mouseClick(button(QStringLiteral("elicitationAccept")), Qt::LeftButton);
    auto* problems = editor->findChild<QLabel*>(QStringLiteral("elicitationProblems"));
    QVERIFY(problems && problems->isVisible());
    QVERIFY2(problems->text().contains(QStringLiteral("args.name")), qPrintable(problems->text()));
    QTest::qWait(200);
    QVERIFY(!record.has_value());
    QCOMPARE(m_window->session()->serverRequests()->waitingCount(), 1);
    // A malformed email is refused too.
    QTest::keyClicks(editor->form()->findChild<QLineEdit*>(QStringLiteral("args.name")), QStringLiteral("Grace"));
    QTest::keyClicks(
        editor->form()->findChild<QLineEdit*>(QStringLiteral("args.email")), QStringLiteral("not-an-email"));
    QTest::mouseClick(button(QStringLiteral("elicitationAccept")), Qt::LeftButton);
    QVERIFY(problems->isVisible());
    QVERIFY2(problems->text().contains(QStringLiteral("args.email")), qPrintable(problems->text()));
    editor->form()->findChild<QLineEdit*>(QStringLiteral("args.email"))->clear();
    QTest::mouseClick(button(QStringLiteral("elicitationAccept")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    const QJsonObject content = rawResult(*record).value(QLatin1String("content")).toObject();
    QCOMPARE(content.value(QLatin1String("name")).toString(), QStringLiteral("Grace"));
    QVERIFY(!content.contains(QLatin1String("email")));
    // Defaults the user left alone are sent as shown.
    QCOMPARE(content.value(QLatin1String("integer")).toInt(), 42);
}

void TestServerRequests::urlElicitationDeclinedThenAccepted()
{
    // A loopback listener stands where the URL points: nothing may connect to it, whatever the user does.
    QTcpServer target;
    QVERIFY(target.listen(QHostAddress::LocalHost, 0));
    int connections = 0;
    connect(&target, &QTcpServer::newConnection, this, [&connections] { ++connections; });
    const QString url = QStringLiteral("http://127.0.0.1:%1/consent?step=1").arg(target.serverPort());
    QVERIFY(connectEverything());

    std::optional<CallRecord> declined;
    startCall(QStringLiteral("trigger-url-elicitation"),
        { { QStringLiteral("url"), url }, { QStringLiteral("message"), QStringLiteral("Approve the payment") },
            { QStringLiteral("elicitationId"), QStringLiteral("el-1") } },
        &declined);
    auto* editor = waitForEditor<ElicitationEditor>();
    QVERIFY(editor);
    auto* address = editor->findChild<QLabel*>(QStringLiteral("elicitationUrl"));
    QVERIFY(address);
    QVERIFY2(
        address->text().contains(QStringLiteral("font-weight: bold\">127.0.0.1</span>")), qPrintable(address->text()));
    QVERIFY2(address->text().contains(QStringLiteral("/consent?step=1")), qPrintable(address->text()));
    QCOMPARE(editor->findChild<QLabel*>(QStringLiteral("elicitationMessage"))->text(),
        QStringLiteral("Approve the payment"));
    // Not https and a bare IP: both said before anything opens.
    const QString warnings = editor->findChild<QLabel*>(QStringLiteral("elicitationUrlWarnings"))->text();
    QVERIFY2(warnings.contains(QStringLiteral("not https")) && warnings.contains(QStringLiteral("IP address")),
        qPrintable(warnings));
    QTest::mouseClick(button(QStringLiteral("elicitationDecline")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(declined.has_value(), 20000);
    QVERIFY2(resultText(*declined).contains(QStringLiteral("User declined to open the URL (Elicitation ID: el-1)")),
        qPrintable(resultText(*declined)));
    QVERIFY(m_opened.isEmpty());

    std::optional<CallRecord> accepted;
    startCall(QStringLiteral("trigger-url-elicitation"),
        { { QStringLiteral("url"), url }, { QStringLiteral("elicitationId"), QStringLiteral("el-2") } }, &accepted);
    editor = waitForEditor<ElicitationEditor>();
    QVERIFY(editor);
    // Opening takes a second, explicit step; Back leaves it unopened.
    QTest::mouseClick(button(QStringLiteral("elicitationOpen")), Qt::LeftButton);
    auto* steps = editor->findChild<QStackedWidget*>(QStringLiteral("elicitationUrlSteps"));
    QCOMPARE(steps->currentIndex(), 1);
    QTest::mouseClick(button(QStringLiteral("elicitationConsentBack")), Qt::LeftButton);
    QCOMPARE(steps->currentIndex(), 0);
    QVERIFY(m_opened.isEmpty());
    QTest::mouseClick(button(QStringLiteral("elicitationOpen")), Qt::LeftButton);
    QTest::mouseClick(button(QStringLiteral("elicitationConsentOpen")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(accepted.has_value(), 20000);
    QVERIFY2(resultText(*accepted).contains(QStringLiteral("User completed the URL elicitation flow.")),
        qPrintable(resultText(*accepted)));
    QCOMPARE(m_opened, QList<QUrl> { QUrl(url) });
    // Accepted, it waits for notifications/elicitation/complete (server-everything sends none), and can be dismissed.
    ServerRequestQueue* queue = m_window->session()->serverRequests();
    QCOMPARE(queue->pending().size(), 1);
    QCOMPARE(queue->pending().first().state, PendingServerRequest::State::AwaitingCompletion);
    QCOMPARE(queue->waitingCount(), 0);
    QTest::mouseClick(button(QStringLiteral("elicitationDismiss")), Qt::LeftButton);
    QCOMPARE(queue->pending().size(), 0);
    QTest::qWait(100);
    QCOMPARE(connections, 0);
}

void TestServerRequests::urlElicitationRequiredError()
{
    QVERIFY(connectEverything());
    std::optional<CallRecord> record;
    startCall(QStringLiteral("trigger-url-elicitation"),
        { { QStringLiteral("url"), QStringLiteral("https://example.org/first") },
            { QStringLiteral("errorPath"), true } },
        &record);
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    QCOMPARE(record->error.value(QLatin1String("code")).toInt(), -32042);
    // The URL the error names waits for consent like any other; nobody waits for an answer.
    auto* editor = waitForEditor<ElicitationEditor>();
    QVERIFY(editor);
    const PendingServerRequest& pending = m_window->session()->serverRequests()->pending().first();
    QVERIFY(pending.fromError);
    QCOMPARE(pending.errorCallId, record->callId);
    QVERIFY2(
        editor->findChild<QLabel*>(QStringLiteral("elicitationUrlAbout"))->text().contains(QStringLiteral("-32042")),
        "the editor says where the URL came from");
    QTest::mouseClick(button(QStringLiteral("elicitationOpen")), Qt::LeftButton);
    QTest::mouseClick(button(QStringLiteral("elicitationConsentOpen")), Qt::LeftButton);
    QCOMPARE(m_opened, QList<QUrl> { QUrl(QStringLiteral("https://modelcontextprotocol.io")) });
    QVERIFY(editor->findChild<QLabel*>(QStringLiteral("elicitationWaiting"))->isVisible());
    QTest::mouseClick(button(QStringLiteral("elicitationDismiss")), Qt::LeftButton);
    QCOMPARE(m_window->session()->serverRequests()->pending().size(), 0);
}

void TestServerRequests::urlElicitationCompletedByServer()
{
    // An SDK server that sends notifications/elicitation/complete once the user accepted its URL.
    QVERIFY(connectServer(
        { { QStringLiteral("transport"), QStringLiteral("stdio") }, { QStringLiteral("command"), test::nodeBinary() },
            { QStringLiteral("args"),
                QJsonArray { QString(test::peersDir() + QStringLiteral("/url-elicitation-peer.mjs")) } } }));
    ServerRequestQueue* queue = m_window->session()->serverRequests();
    QSignalSpy removed(queue, &ServerRequestQueue::removed);
    std::optional<CallRecord> record;
    startCall(QStringLiteral("connect-account"), {}, &record);
    QVERIFY(waitForEditor<ElicitationEditor>());
    QTest::mouseClick(button(QStringLiteral("elicitationOpen")), Qt::LeftButton);
    QTest::mouseClick(button(QStringLiteral("elicitationConsentOpen")), Qt::LeftButton);
    QCOMPARE(m_opened, QList<QUrl> { QUrl(QStringLiteral("https://accounts.example.com/connect?flow=1")) });
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    QVERIFY2(resultText(*record).contains(QStringLiteral("answer: accept")), qPrintable(resultText(*record)));
    // The server's completion, not the user, takes it out of the queue.
    QTRY_COMPARE_WITH_TIMEOUT(removed.count(), 1, 10000);
    QCOMPARE(removed.first().at(1).toString(), QStringLiteral("completed"));
    QCOMPARE(queue->pending().size(), 0);
    QCOMPARE(m_window->serverRequestsDock()->list()->count(), 0);
}

void TestServerRequests::cannedReplyAnswersWithoutPanel()
{
    const QJsonObject autoReply { { QStringLiteral("sampling"),
        QJsonObject { { QStringLiteral("text"), QStringLiteral("canned answer 7") },
            { QStringLiteral("model"), QStringLiteral("canned-model") } } } };
    QVERIFY(connectEverything({ { QStringLiteral("autoReply"), autoReply } }));
    QCOMPARE(m_window->engine()->connection(Server)->config().autoReply, autoReply);
    std::optional<CallRecord> record;
    startCall(
        QStringLiteral("trigger-sampling-request"), { { QStringLiteral("prompt"), QStringLiteral("auto") } }, &record);
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), 20000);
    const QString result = resultText(*record);
    QVERIFY2(result.contains(QStringLiteral("canned answer 7")) && result.contains(QStringLiteral("canned-model")),
        qPrintable(result));
    ServerRequestQueue* queue = m_window->session()->serverRequests();
    QCOMPARE(queue->autoAnsweredCount(), 1);
    QCOMPARE(m_window->serverRequestsDock()->list()->count(), 0);
    QCOMPARE(
        countEvents(*record, QStringLiteral("McpScope answered sampling/createMessage: assistant \"canned answer 7\"")),
        1);
    // Elicitation has no canned reply here: it still waits for the user.
    std::optional<CallRecord> elicited;
    startCall(QStringLiteral("trigger-elicitation-request"), {}, &elicited);
    QVERIFY(waitForEditor<ElicitationEditor>());
    QTest::mouseClick(button(QStringLiteral("elicitationDecline")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(elicited.has_value(), 20000);
    QVERIFY(CallSummary::declinedInput(*elicited));
}

QTEST_MAIN(TestServerRequests)
#include "tst_serverrequests.moc"
