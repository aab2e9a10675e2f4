#pragma once

#include "calllog/calllogappender.h"
#include "calllog/callrecord.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "engine/loadrunner.h"
#include "engine/serverauth.h"
#include "exitcodes.h"
#include "session/clientsession.h"
#include "session/scriptedresponder.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QFile>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTextStream>

#include <functional>
#include <memory>

namespace mcpscope {

class Engine;
class ServerConnection;
struct TaskInfo;

/// mcpscope-cli: the engine for scripts, CI and other test suites. app/cli/main.cpp only runs it.
class CliApp : public QObject
{
    Q_OBJECT
public:
    explicit CliApp(QObject* parent = nullptr);
    ~CliApp() override;

    /// Parses arguments and starts the command. Returns -1 when the command runs asynchronously
    /// (finished() will carry the exit code), or an exit code to return at once.
    int start(const QStringList& arguments);
    static QString helpText();

Q_SIGNALS:
    void finished(int exitCode);

private:
    bool parse(const QStringList& arguments, QString* error);
    bool parseAuthOptions(const QCommandLineParser& parser, const QCommandLineOption& clientIdOpt,
        const QCommandLineOption& clientSecretOpt, const QCommandLineOption& clientKeyOpt,
        const QCommandLineOption& grantOpt, const QCommandLineOption& authBrowserOpt, QString* error);
    /// The system browser opens an authorization URL (xdg-open); when it cannot, the URL is printed.
    void openBrowser(const QUrl& url);
    /// For errors printed before the engine exists: the secrets the command line carries (URL passwords,
    /// --client-secret, secret or credential headers, arguments too broken to tell).
    Redactor usageRedactor(const QStringList& arguments) const;
    void onReady();
    void runCommand();
    /// Sends one request through Engine::call with the command's timeout (and progress for a tools/call).
    void request(const QString& method, const QJsonObject& params, std::function<void(const CallRecord&)> done);
    /// Pages through a list method through Engine::list and completes the command with the whole list.
    void list(const QString& method, const QString& key);
    /// load TOOL [JSON] --concurrency N (--duration S | --requests N) (loadcommand.cpp).
    void load();
    /// The load command's options, checked by parse().
    bool parseLoadOptions(const QCommandLineParser& parser, const QCommandLineOption& concurrencyOpt,
        const QCommandLineOption& durationOpt, const QCommandLineOption& requestsOpt, const QCommandLineOption& rateOpt,
        const QCommandLineOption& faultOpt, QString* error);
    /// subscribe URI --for SECONDS (cliresources.cpp).
    void subscribe();
    /// read --out: the first content (a blob decoded, or the text as UTF-8) into m_outFile.
    bool writeReadContent(const QJsonObject& result, QString* error) const;
    void complete(const Reply& reply, const QJsonObject& extra = {}, int successCode = ExitSuccess);
    /// Prints a call's result, or fails with its message and the exit code of its outcome.
    void completeCall(const CallRecord& record);
    /// Prints a tools/call's result (with taskExtra: the task's id and status), or fails with its outcome.
    void finishToolCall(const QString& toolName, const CallRecord& record, const QJsonObject& taskExtra = {});
    /// A task-augmented call was created: waits for the task to end (TaskTracker), printing its status changes
    /// with --progress, then finishes the call with the task's result. False when the record holds no task.
    bool followTask(const QString& toolName, const CallRecord& created);
    void printTaskStatus(const TaskInfo& task);
    /// tasks list | get ID | cancel ID (clitasks.cpp).
    void tasksCommand();
    void printResult(const Reply& reply, const QJsonObject& extra);
    void fail(const QString& message, int code, const QJsonObject& extra = {});
    void quit(int code);
    void progress(const ProgressUpdate& update);
    QJsonObject parseJsonArg(int index, bool* ok);

    QTextStream m_out;
    QTextStream m_err;
    std::unique_ptr<QFile> m_stderrFile;
    std::unique_ptr<QTextStream> m_stderrStream;
    ServerConfig m_config;
    QString m_command;
    QStringList m_commandArgs;
    bool m_json = false;
    bool m_progress = false;
    bool m_task = false; ///< call --task
    QHash<QString, QString> m_taskLines; ///< the status line last printed for each task (--progress)
    QString m_logLevel;
    qint64 m_timeoutMs = 60000;
    qint64 m_forMs = 10000; ///< subscribe --for
    QString m_outFile; ///< read --out
    LoadSpec m_load; ///< load's options
    ServerAuth::Browser m_authBrowser = ServerAuth::Browser::External;
    ScriptedResponder m_responder;
    Engine* m_engine = nullptr;
    ServerConnection* m_connection = nullptr;
    int m_exitCode = -1;
    bool m_commandStarted = false;
    QString m_script;
    std::unique_ptr<QFile> m_log;
    /// Writes --log's lines; declared after m_log, so destroyed (and flushed) while the file is open.
    std::unique_ptr<CallLogAppender> m_logAppender;
};

} // namespace mcpscope
