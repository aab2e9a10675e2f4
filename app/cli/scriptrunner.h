#pragma once

#include "calllog/callrecord.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTextStream>

#include <functional>

namespace mcpscope {

class Engine;
class FaultProxy;
class ServerConnection;

/// `mcpscope-cli run`: one step per line, run in order through the recovery engine, one JSON
/// object printed per step. Steps:
///   call TOOL [JSON] | tools | ping | expire [server|client] | reconnect | kill
///   fault NAME [N] [ARGS] | breaker open|reset | wait MS | parallel N STEP | # comment
/// `parallel N STEP` starts N copies of STEP at once and goes on when all have ended; each copy
/// prints its own object, as it ends, with "copy": 1..N.
/// HTTP faults (expire-before, expire-after, cut-after, auth-401, delay MS, drop-stream, close-before-head,
/// rst-before-head; ARGS may add method=M or tool=T) need the embedded fault proxy; stdio faults are
/// kill-after-write, close-stdin and delay MS. finished() carries the exit code of the last failing step
/// (0 when none failed).
class ScriptRunner : public QObject
{
    Q_OBJECT
public:
    /// Calls go through engine->call() to server; the manual steps act on server's connection.
    ScriptRunner(Engine* engine, const QString& server, FaultProxy* proxy, QTextStream& out, QObject* parent = nullptr);

    void setTimeoutMs(qint64 timeoutMs) { m_timeoutMs = timeoutMs; }
    /// Parses the script; false with *error (naming the line) when a step is malformed.
    bool load(const QString& script, QString* error);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    using StepDone = std::function<void(QJsonObject object, int exitCode)>;

    bool validateStep(const QString& line, int lineNumber, QString* error, bool inParallel = false);
    void next();
    /// Runs one step (not a parallel one); done gets its object, once.
    void runStep(const QString& text, StepDone done);
    void print(QJsonObject object, int exitCode);
    void runCall(const QString& method, const QJsonObject& params, const QString& tool, StepDone done);

    QPointer<Engine> m_engine;
    QString m_server;
    QPointer<ServerConnection> m_connection;
    QPointer<FaultProxy> m_proxy;
    QTextStream& m_out;
    QList<QPair<int, QString>> m_steps; ///< line number, text
    int m_index = -1;
    int m_lastFailure = 0;
    qint64 m_timeoutMs = 0;
};

} // namespace mcpscope
