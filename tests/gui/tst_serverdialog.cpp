// The server dialog's Authorization group (issue 13): the grant and client id go into the configuration,
// a secret or PEM key only into what OK hands to ServerAuth (for the keychain), a stored one is shown as
// stored and never again, and the client credentials grant is refused without what it needs. The Arguments
// field splits like a shell.

#include "dialogs/rootseditor.h"
#include "dialogs/serverdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using mcpscope::ServerConfig;
using mcpscope::ServerDialog;
using mcpscope::TransportKind;

namespace {

const QByteArray Pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n"
                       "-----END PRIVATE KEY-----\n";

ServerConfig httpServer()
{
    ServerConfig c;
    c.name = QStringLiteral("weather");
    c.transport = TransportKind::StreamableHttp;
    c.url = QUrl(QStringLiteral("http://127.0.0.1:4000/mcp"));
    return c;
}

ServerConfig stdioServer()
{
    ServerConfig c;
    c.name = QStringLiteral("local");
    c.command = QStringLiteral("node");
    return c;
}

template <typename T> T* child(const QWidget& parent, const char* name)
{
    T* widget = parent.findChild<T*>(QLatin1String(name));
    if (!widget)
        qWarning("no child %s", name);
    return widget;
}

} // namespace

[[maybe_unused]] static const bool s_offscreenByDefault = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

class TestServerDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idAndGrantGoIntoTheConfig();
    void storedSecretIsShownAsStored();
    void clientCredentialsNeedAnIdAndASecretOrKey();
    void privateKeyIsReadFromAPemFile();
    void argumentsSplitLikeAShell();
    void exitWaitIsUnsetUntilChosen();
    void rootsAreEditedWithTheFolderPicker();
    void cannedRepliesGoIntoTheWorkspace();
    void secretValuesShowAsDotsUntilRevealed();
    void heightFollowsTheTransportsPage();
};

void TestServerDialog::idAndGrantGoIntoTheConfig()
{
    ServerDialog dialog({});
    ServerConfig c = httpServer();
    c.oauthClientId = QStringLiteral("mcpscope-desktop");
    dialog.setConfig(c);
    QCOMPARE(child<QLineEdit>(dialog, "oauthClientId")->text(), QStringLiteral("mcpscope-desktop"));
    QCOMPARE(dialog.config().oauthClientId, QStringLiteral("mcpscope-desktop"));
    // An unset grant stays unset: the workspace does not change by itself.
    QCOMPARE(dialog.config().oauthGrant, QString());
    QCOMPARE(dialog.problem(), QString());
    child<QLineEdit>(dialog, "oauthClientSecret")->setText(QStringLiteral("s3cret"));
    QVERIFY(dialog.config().oauthClientSecret.isEmpty());
    QVERIFY(!QJsonDocument(dialog.config().toJson()).toJson().contains("s3cret"));
    const ServerDialog::CredentialChange change = dialog.credentialChange();
    QVERIFY(change.changed);
    QCOMPARE(change.clientSecret, std::optional<QString>(QStringLiteral("s3cret")));
    // The key was not touched: a stored one is kept.
    QVERIFY(!change.clientKeyPem.has_value());

    c.oauthGrant = QStringLiteral("authorization_code");
    dialog.setConfig(c);
    QCOMPARE(dialog.config().oauthGrant, QStringLiteral("authorization_code"));
    QVERIFY(!dialog.credentialChange().changed);
}

void TestServerDialog::storedSecretIsShownAsStored()
{
    ServerDialog dialog({});
    dialog.setConfig(httpServer());
    dialog.setStoredCredentials(true, false);
    auto* secret = child<QLineEdit>(dialog, "oauthClientSecret");
    auto* stored = child<QLabel>(dialog, "oauthSecretStored");
    auto* clear = child<QPushButton>(dialog, "oauthClearSecret");
    QVERIFY(stored->isVisibleTo(&dialog));
    QCOMPARE(stored->text(), QStringLiteral("••• stored in the keychain"));
    QVERIFY(!secret->isVisibleTo(&dialog));
    QVERIFY(clear->isVisibleTo(&dialog));
    QVERIFY(!dialog.credentialChange().changed);

    clear->click();
    QVERIFY(secret->isVisibleTo(&dialog));
    QVERIFY(!stored->isVisibleTo(&dialog));
    const ServerDialog::CredentialChange cleared = dialog.credentialChange();
    QVERIFY(cleared.changed);
    QCOMPARE(cleared.clientSecret, std::optional<QString>(QString()));
    QVERIFY(!cleared.clientKeyPem.has_value());
}

void TestServerDialog::clientCredentialsNeedAnIdAndASecretOrKey()
{
    ServerDialog dialog({});
    ServerConfig c = httpServer();
    c.oauthGrant = QStringLiteral("client_credentials");
    dialog.setConfig(c);
    QCOMPARE(dialog.problem(), QStringLiteral("The client credentials grant needs a client id."));
    child<QLineEdit>(dialog, "oauthClientId")->setText(QStringLiteral("machine"));
    QCOMPARE(dialog.problem(), QStringLiteral("The client credentials grant needs a client secret or a private key."));
    child<QLineEdit>(dialog, "oauthClientSecret")->setText(QStringLiteral("x"));
    QCOMPARE(dialog.problem(), QString());
    child<QLineEdit>(dialog, "oauthClientSecret")->clear();
    dialog.setStoredCredentials(false, true);
    QCOMPARE(dialog.problem(), QString());
    QCOMPARE(dialog.config().oauthGrant, QStringLiteral("client_credentials"));
}

void TestServerDialog::privateKeyIsReadFromAPemFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString notPem = dir.filePath(QStringLiteral("notes.txt"));
    const QString pem = dir.filePath(QStringLiteral("client.pem"));
    {
        QFile a(notPem);
        QVERIFY(a.open(QIODevice::WriteOnly));
        a.write("just some text\n");
        QFile b(pem);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write(Pem);
    }
    ServerDialog dialog({});
    ServerConfig c = httpServer();
    c.oauthGrant = QStringLiteral("client_credentials");
    c.oauthClientId = QStringLiteral("machine");
    dialog.setConfig(c);
    QString error;
    QVERIFY(!dialog.loadKeyFile(notPem, &error));
    QCOMPARE(error, QStringLiteral("notes.txt is not a PEM private key (it has no BEGIN … PRIVATE KEY line)."));
    QVERIFY(dialog.loadKeyFile(pem, &error));
    QCOMPARE(
        child<QLabel>(dialog, "oauthKeyState")->text(), QStringLiteral("client.pem (stored in the keychain on OK)"));
    QCOMPARE(dialog.problem(), QString());
    const ServerDialog::CredentialChange change = dialog.credentialChange();
    QVERIFY(change.changed);
    QCOMPARE(change.clientKeyPem, std::optional<QByteArray>(Pem));
    QVERIFY(!change.clientSecret.has_value());
    // The key's bytes go to the keychain; neither they nor the path reach the workspace.
    const QByteArray json = QJsonDocument(dialog.config().toJson()).toJson();
    QVERIFY(!json.contains("PRIVATE KEY"));
    QVERIFY(!json.contains("client.pem"));
}

// The Arguments field promises shell splitting: single and double quotes keep spaces, and what the
// dialog shows for a configuration splits back into the same arguments.
void TestServerDialog::argumentsSplitLikeAShell()
{
    ServerDialog dialog({});
    ServerConfig c = stdioServer();
    dialog.setConfig(c);
    auto* args = child<QLineEdit>(dialog, "args");
    QVERIFY(args);
    args->setText(QStringLiteral("'/home/me/My Servers/index.js' \"it's here\" --flag"));
    QCOMPARE(dialog.config().args,
        QStringList(
            { QStringLiteral("/home/me/My Servers/index.js"), QStringLiteral("it's here"), QStringLiteral("--flag") }));

    c.args = { QStringLiteral("a b"), QStringLiteral("it's"), QString(), QStringLiteral("plain") };
    dialog.setConfig(c);
    QCOMPARE(dialog.config().args, c.args);
    // The launch command's tooltip says the same about quotes.
    QVERIFY(child<QLineEdit>(dialog, "launchCommand")->toolTip().contains(QStringLiteral("'single'")));
}

// ServerConfig::exitWaitMs: unset shows as the default and stays unset (the workspace file does not
// change by itself); a value, 0 included, goes into the config and comes back.
void TestServerDialog::exitWaitIsUnsetUntilChosen()
{
    ServerDialog dialog({});
    ServerConfig c = stdioServer();
    dialog.setConfig(c);
    auto* exitWait = child<QSpinBox>(dialog, "exitWait");
    QVERIFY(exitWait);
    QVERIFY(exitWait->text().startsWith(QStringLiteral("default")));
    QCOMPARE(dialog.config().exitWaitMs, std::nullopt);

    exitWait->setValue(0);
    QCOMPARE(dialog.config().exitWaitMs, std::optional<int>(0));
    c.exitWaitMs = 750;
    dialog.setConfig(c);
    QCOMPARE(exitWait->value(), 750);
    QCOMPARE(dialog.config(), c);
}

void TestServerDialog::rootsAreEditedWithTheFolderPicker()
{
    ServerDialog dialog({});
    ServerConfig c = httpServer();
    c.roots = { QStringLiteral("/srv/a") };
    dialog.setConfig(c);
    auto* editor = child<mcpscope::RootsEditor>(dialog, "rootsEditor");
    QVERIFY(editor);
    QCOMPARE(editor->roots(), QStringList { QStringLiteral("/srv/a") });
    QString chosen = QStringLiteral("/srv/b");
    editor->setFolderChooser([&chosen] { return chosen; });
    QSignalSpy changed(editor, &mcpscope::RootsEditor::changed);
    child<QPushButton>(dialog, "addRoot")->click();
    // The same folder twice stays one root; a cancelled picker adds nothing.
    child<QPushButton>(dialog, "addRoot")->click();
    chosen.clear();
    child<QPushButton>(dialog, "addRoot")->click();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(dialog.config().roots, (QStringList { QStringLiteral("/srv/a"), QStringLiteral("/srv/b") }));
    auto* list = child<QListWidget>(dialog, "roots");
    list->setCurrentRow(0);
    child<QPushButton>(dialog, "removeRoot")->click();
    QCOMPARE(dialog.config().roots, QStringList { QStringLiteral("/srv/b") });
    QVERIFY(QJsonDocument(dialog.config().toJson()).toJson().contains("/srv/b"));
}

// The per-server canned answers to sampling and elicitation: edited, checked, saved in the workspace form,
// and a full CreateMessageResult written by hand survives the dialog untouched.
void TestServerDialog::cannedRepliesGoIntoTheWorkspace()
{
    ServerDialog dialog({});
    ServerConfig c = httpServer();
    dialog.setConfig(c);
    QVERIFY(dialog.config().autoReply.isEmpty());
    child<QCheckBox>(dialog, "autoReplySampling")->setChecked(true);
    auto* text = child<QLineEdit>(dialog, "autoReplySamplingText");
    QTest::keyClicks(text, QStringLiteral("scripted"));
    child<QCheckBox>(dialog, "autoReplyElicitation")->setChecked(true);
    auto* content = child<QLineEdit>(dialog, "autoReplyElicitationContent");
    QTest::keyClicks(content, QStringLiteral("{\"name\": "));
    QVERIFY2(dialog.problem().contains(QStringLiteral("JSON object")), qPrintable(dialog.problem()));
    QTest::keyClicks(content, QStringLiteral("\"Ada\"}"));
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    const QJsonObject expected {
        { QStringLiteral("sampling"),
            QJsonObject { { QStringLiteral("text"), QStringLiteral("scripted") },
                { QStringLiteral("model"), QStringLiteral("mcpscope-canned") } } },
        { QStringLiteral("elicitation"),
            QJsonObject { { QStringLiteral("action"), QStringLiteral("accept") },
                { QStringLiteral("content"), QJsonObject { { QStringLiteral("name"), QStringLiteral("Ada") } } } } },
    };
    QCOMPARE(dialog.config().autoReply, expected);
    mcpscope::ConfigError error;
    QCOMPARE(ServerConfig::fromJson(QStringLiteral("s"), dialog.config().toJson(), &error).autoReply, expected);
    QVERIFY(error.isNull());

    const QJsonObject full { { QStringLiteral("sampling"),
        QJsonObject { { QStringLiteral("role"), QStringLiteral("assistant") },
            { QStringLiteral("content"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("text") },
                    { QStringLiteral("text"), QStringLiteral("hi") } } },
            { QStringLiteral("model"), QStringLiteral("m") },
            { QStringLiteral("stopReason"), QStringLiteral("maxTokens") } } } };
    c.autoReply = full;
    dialog.setConfig(c);
    QCOMPARE(text->text(), QStringLiteral("hi"));
    QCOMPARE(dialog.config().autoReply, full);
}

// Secret values never reach the screen unless asked for: the dialog shows dots for secret variables,
// sensitive and secret headers and the URL's password, and still saves the real values.
void TestServerDialog::secretValuesShowAsDotsUntilRevealed()
{
    ServerDialog dialog({});
    ServerConfig stdio;
    stdio.name = QStringLiteral("local");
    stdio.command = QStringLiteral("node");
    stdio.env = { { QStringLiteral("API_KEY"), QStringLiteral("sk-live-4242") },
        { QStringLiteral("REGION"), QStringLiteral("eu-west") } };
    stdio.secretEnv = { QStringLiteral("API_KEY") };
    dialog.setConfig(stdio);
    auto* env = child<QPlainTextEdit>(dialog, "env");
    auto* reveal = child<QCheckBox>(dialog, "revealSecrets");
    QVERIFY(env && reveal);
    QVERIFY2(!env->toPlainText().contains(QStringLiteral("sk-live-4242")), qPrintable(env->toPlainText()));
    QVERIFY(env->toPlainText().contains(QStringLiteral("REGION=eu-west")));
    QCOMPARE(dialog.config().env, stdio.env);

    reveal->setChecked(true);
    QVERIFY(env->toPlainText().contains(QStringLiteral("API_KEY=sk-live-4242")));
    reveal->setChecked(false);
    QVERIFY(!env->toPlainText().contains(QStringLiteral("sk-live-4242")));
    // A value typed over the dots is the new value.
    env->setPlainText(QStringLiteral("API_KEY=sk-new-9999\nREGION=eu-west"));
    QCOMPARE(dialog.config().env.value(QStringLiteral("API_KEY")), QStringLiteral("sk-new-9999"));

    ServerConfig http = httpServer();
    http.url = QUrl(QStringLiteral("http://alice:pa55word@127.0.0.1:4000/mcp"));
    http.headers = { { QStringLiteral("authorization"), QStringLiteral("Bearer tok-777") },
        { QStringLiteral("X-Api-Key"), QStringLiteral("key-31337") },
        { QStringLiteral("X-Trace"), QStringLiteral("on") } };
    http.secretHeaders = { QStringLiteral("x-api-key") };
    dialog.setConfig(http);
    auto* headers = child<QPlainTextEdit>(dialog, "headers");
    auto* url = child<QLineEdit>(dialog, "url");
    QVERIFY(headers && url);
    for (const QString& secret : { QStringLiteral("tok-777"), QStringLiteral("key-31337") })
        QVERIFY2(!headers->toPlainText().contains(secret), qPrintable(headers->toPlainText()));
    QVERIFY(headers->toPlainText().contains(QStringLiteral("X-Trace: on")));
    QVERIFY2(!url->text().contains(QStringLiteral("pa55word")), qPrintable(url->text()));
    QVERIFY(url->text().contains(QStringLiteral("alice")));
    const ServerConfig saved = dialog.config();
    QCOMPARE(saved.url, http.url);
    QCOMPARE(saved.headers, http.headers);
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));

    reveal->setChecked(true);
    QVERIFY(headers->toPlainText().contains(QStringLiteral("authorization: Bearer tok-777")));
    QVERIFY(url->text().contains(QStringLiteral("pa55word")));
    QCOMPARE(dialog.config().url, http.url);
}

// The stdio page is shorter than the HTTP page: the dialog is as tall as the page it shows, not as the tallest
// page with a gap under the stdio fields, and it follows a change of transport. The width stays.
void TestServerDialog::heightFollowsTheTransportsPage()
{
    ServerDialog dialog({});
    ServerConfig c = stdioServer();
    dialog.setConfig(c);
    const int stdioHint = dialog.sizeHint().height();
    dialog.setConfig(httpServer());
    const int httpHint = dialog.sizeHint().height();
    QVERIFY2(stdioHint < httpHint, qPrintable(QStringLiteral("%1 vs %2").arg(stdioHint).arg(httpHint)));

    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.resize(900, dialog.height());
    const int httpHeight = dialog.height();
    auto* transport = child<QComboBox>(dialog, "transport");
    QVERIFY(transport);
    transport->setCurrentIndex(transport->findData(int(TransportKind::Stdio)));
    QTRY_COMPARE(dialog.height(), dialog.sizeHint().height());
    const int stdioHeight = dialog.height();
    QVERIFY2(stdioHeight < httpHeight, qPrintable(QStringLiteral("%1 vs %2").arg(stdioHeight).arg(httpHeight)));
    QCOMPARE(dialog.width(), 900);
    transport->setCurrentIndex(transport->findData(int(TransportKind::StreamableHttp)));
    QTRY_COMPARE(dialog.height(), dialog.sizeHint().height());
    QVERIFY(dialog.height() > stdioHeight);
}

QTEST_MAIN(TestServerDialog)
#include "tst_serverdialog.moc"
