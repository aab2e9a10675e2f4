#pragma once

#include "calllog/callrecord.h"
#include "engine/serverconnection.h"
#include "session/clientsession.h"
#include "session/scriptedresponder.h"

#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QTextStream>
#include <QUrl>

#include <functional>

namespace mcpscope {

class Engine;
class ServerConnection;

/// `mcpscope-cli conformance URL`: the client side of the official MCP conformance suite
/// (@modelcontextprotocol/conformance, which starts a scenario server and runs us against it).
///
/// Drives a real Engine with one server over Streamable HTTP: initialize, tools/list, then the tool call
/// the scenario (MCP_CONFORMANCE_SCENARIO) asks for, each request through Engine::call. Server requests are
/// answered by a ScriptedResponder. Authorization is the engine's, as for every other command: a 401 or a
/// 403 with insufficient_scope is R2/R3 (ServerAuth runs the OAuth flow without a browser, then the request
/// is sent once more), and an initialize that needs credentials is authorized before the session starts
/// again. Pre-registered client credentials and the extension grants' inputs come from
/// MCP_CONFORMANCE_CONTEXT (conformancecontext.h).
///
/// Signals: finished once, with an ExitCode (exitcodes.h), after the session was closed.
class ConformanceClient : public QObject
{
    Q_OBJECT
public:
    /// What a scenario asks the client to do. Only the actions differ; the engine underneath is the same.
    struct Call
    {
        QString tool;
        QJsonObject arguments;
    };
    struct Plan
    {
        QList<Call> calls; ///< in order; none: initialize and list the tools only
        /// Call every tool the session kept (after it left out the invalid ones), with example
        /// arguments for their required parameters.
        bool callEveryTool = false;
        /// Then call `json_schema_echo` with this tool's inputSchema as the client holds it.
        QString echoSchemaOf;
        QJsonObject responses; ///< a ScriptedResponder script
    };
    /// context: MCP_CONFORMANCE_CONTEXT; its `toolCalls` (0.2.0 scenarios) are the calls to make.
    static Plan planFor(const QString& scenario, const QJsonObject& context = {});

    /// The Client ID Metadata Document URL the conformance suite's authorization servers expect.
    static QUrl clientMetadataUrl();

    explicit ConformanceClient(QObject* parent = nullptr);
    ~ConformanceClient() override;

    /// args: the words after "conformance" on the command line; the server URL is the last of them.
    /// Returns -1 when the run started (finished() follows), or an exit code to return at once.
    int start(const QStringList& args);

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onConnectionFailed(const QString& message);
    void onReady();
    void runCalls(const QList<ToolInfo>& tools);
    void callNext();
    CallOptions callOptions() const;
    void printToolResult(const QJsonObject& result);
    void finish(int exitCode, const QString& message = {});
    void emitFinished();
    void say(const QString& line);

    QTextStream m_out;
    QTextStream m_err;
    QString m_scenario;
    Plan m_plan;
    QList<Call> m_calls; ///< still to make
    int m_callsExit = 0; ///< ExitSuccess, or the first failed call's exit code
    ScriptedResponder m_responder;
    Engine* m_engine = nullptr;
    ServerConnection* m_connection = nullptr;
    int m_exitCode = -1;
    bool m_planStarted = false;
    bool m_finishedEmitted = false;
};

} // namespace mcpscope
