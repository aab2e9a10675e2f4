#include "scriptrunner.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "exitcodes.h"
#include "fault/faultproxy.h"
#include "fault/stdiofault.h"
#include "recovery/circuitbreaker.h"
#include "recovery/reconnector.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTimer>

#include <memory>
#include <optional>

namespace mcpscope {

namespace {
const QStringList StepNames { QStringLiteral("call"), QStringLiteral("tools"), QStringLiteral("ping"),
    QStringLiteral("expire"), QStringLiteral("reconnect"), QStringLiteral("kill"), QStringLiteral("fault"),
    QStringLiteral("breaker"), QStringLiteral("wait"), QStringLiteral("parallel") };
constexpr int MaxParallelCopies = 1000;

/// "parallel N STEP": N and STEP, or nullopt for a line that is not a parallel step.
std::optional<std::pair<QString, QString>> splitParallel(const QString& line)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^parallel(?:\s+(\S+)(?:\s+(.*))?)?$)"));
    const QRegularExpressionMatch match = pattern.match(line);
    if (!match.hasMatch())
        return std::nullopt;
    return std::pair { match.captured(1), match.captured(2).trimmed() };
}
} // namespace

ScriptRunner::ScriptRunner(Engine* engine, const QString& server, FaultProxy* proxy, QTextStream& out, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_server(server)
    , m_connection(engine ? engine->connection(server) : nullptr)
    , m_proxy(proxy)
    , m_out(out)
{ }

bool ScriptRunner::load(const QString& script, QString* error)
{
    const QStringList lines = script.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QString line = lines.at(i).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        if (!validateStep(line, i + 1, error))
            return false;
        m_steps.append({ i + 1, line });
    }
    return true;
}

bool ScriptRunner::validateStep(const QString& line, int lineNumber, QString* error, bool inParallel)
{
    const QString word = line.section(QLatin1Char(' '), 0, 0);
    if (!StepNames.contains(word)) {
        *error = tr("line %1: unknown step '%2' (one of: %3)")
                     .arg(lineNumber)
                     .arg(word, StepNames.join(QStringLiteral(", ")));
        return false;
    }
    if (word == QLatin1String("parallel")) {
        if (inParallel) {
            *error = tr("line %1: parallel cannot run another parallel step").arg(lineNumber);
            return false;
        }
        const auto parts = splitParallel(line);
        bool isNumber = false;
        const int copies = parts ? parts->first.toInt(&isNumber) : 0;
        if (!parts || !isNumber || copies < 1 || copies > MaxParallelCopies || parts->second.isEmpty()) {
            *error = tr("line %1: parallel needs a number of copies from 1 to %2 and a step, as in "
                        "'parallel 10 call read {}'")
                         .arg(lineNumber)
                         .arg(MaxParallelCopies);
            return false;
        }
        return validateStep(parts->second, lineNumber, error, true);
    }
    if (word == QLatin1String("call")) {
        const QString json = line.section(QLatin1Char(' '), 2).trimmed();
        if (line.section(QLatin1Char(' '), 1, 1).isEmpty()) {
            *error = tr("line %1: call needs a tool name").arg(lineNumber);
            return false;
        }
        if (!json.isEmpty() && !QJsonDocument::fromJson(json.toUtf8()).isObject()) {
            *error = tr("line %1: the arguments are not a JSON object: %2").arg(lineNumber).arg(json);
            return false;
        }
    }
    return true;
}

void ScriptRunner::start()
{
    QTimer::singleShot(0, this, &ScriptRunner::next);
}

void ScriptRunner::print(QJsonObject object, int exitCode)
{
    const auto& [line, text] = m_steps.at(m_index);
    object.insert(QStringLiteral("line"), line);
    object.insert(QStringLiteral("step"), text);
    object.insert(QStringLiteral("exitCode"), exitCode);
    if (exitCode != ExitSuccess)
        m_lastFailure = exitCode;
    m_out << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    m_out.flush();
}

void ScriptRunner::runCall(const QString& method, const QJsonObject& params, const QString& tool, StepDone done)
{
    CallOptions options;
    options.timeoutMs = m_timeoutMs;
    m_engine->call(m_server, method, params, options, [tool, done](const CallRecord& record) {
        QJsonArray sessions;
        for (const CallAttempt& attempt : record.attempts)
            sessions.append(attempt.sessionId);
        QJsonObject step { { QStringLiteral("command"), tool.isEmpty() ? record.method : QStringLiteral("call") },
            { QStringLiteral("callId"), record.callId }, { QStringLiteral("outcome"), outcomeName(record.outcome) },
            { QStringLiteral("rule"), record.rule }, { QStringLiteral("attempts"), int(record.attempts.size()) },
            { QStringLiteral("sessions"), sessions }, { QStringLiteral("healed"), record.healed } };
        if (!tool.isEmpty())
            step.insert(QStringLiteral("tool"), tool);
        if (!record.result.isUndefined())
            step.insert(QStringLiteral("result"), record.result);
        if (!record.error.isEmpty())
            step.insert(QStringLiteral("error"), record.error);
        done(step, exitCodeFor(record.outcome));
    });
}

void ScriptRunner::next()
{
    if (++m_index >= m_steps.size()) {
        Q_EMIT finished(m_lastFailure);
        return;
    }
    if (!m_engine || !m_connection) {
        Q_EMIT finished(ExitTransportFailure);
        return;
    }
    const QString text = m_steps.at(m_index).second;
    const QPointer<ScriptRunner> self(this);
    const auto parts = splitParallel(text);
    if (!parts) {
        runStep(text, [self](const QJsonObject& object, int exitCode) {
            if (!self)
                return;
            self->print(object, exitCode);
            QTimer::singleShot(0, self, &ScriptRunner::next);
        });
        return;
    }
    // All copies start before any can finish, even one that ends at once (an open breaker), and the
    // script goes on only when the last one has printed.
    const int copies = parts->first.toInt();
    auto left = std::make_shared<int>(copies);
    for (int copy = 1; copy <= copies; ++copy) {
        runStep(parts->second, [self, copy, left](QJsonObject object, int exitCode) {
            if (!self)
                return;
            object.insert(QStringLiteral("copy"), copy);
            self->print(object, exitCode);
            if (--*left == 0)
                QTimer::singleShot(0, self, &ScriptRunner::next);
        });
    }
}

void ScriptRunner::runStep(const QString& text, StepDone done)
{
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString step = words.first();
    QJsonObject out { { QStringLiteral("command"), step } };

    if (step == QLatin1String("call")) {
        const QString json = text.section(QLatin1Char(' '), 2).trimmed();
        const QJsonObject args = json.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(json.toUtf8()).object();
        runCall(QStringLiteral("tools/call"),
            { { QStringLiteral("name"), words.at(1) }, { QStringLiteral("arguments"), args } }, words.at(1), done);
    } else if (step == QLatin1String("ping")) {
        runCall(QStringLiteral("ping"), {}, QString(), done);
    } else if (step == QLatin1String("tools")) {
        runCall(QStringLiteral("tools/list"), {}, QString(), done);
    } else if (step == QLatin1String("expire")) {
        const bool serverSide = words.value(1, QStringLiteral("server")) != QLatin1String("client");
        QString error;
        const QString before = m_connection->sessionId();
        const bool ok = m_connection->expireSession(serverSide, &error);
        out.insert(QStringLiteral("side"), serverSide ? QStringLiteral("server") : QStringLiteral("client"));
        out.insert(QStringLiteral("sessionId"), before);
        if (!ok)
            out.insert(QStringLiteral("error"), error);
        // The DELETE is asynchronous; give it a moment so the next step sees the expired session.
        QTimer::singleShot(serverSide ? 200 : 0, this, [done, out, ok] { done(out, ok ? ExitSuccess : ExitUsage); });
    } else if (step == QLatin1String("reconnect")) {
        const QString before = m_connection->sessionId();
        m_connection->noteEvent(QStringLiteral("action"), tr("reconnect requested by the script"));
        m_connection->reconnector()->join(
            before, 15000, this, [done, out, before](const Reconnector::Result& result) mutable {
                out.insert(QStringLiteral("ok"), result.ok);
                out.insert(QStringLiteral("oldSessionId"), before);
                out.insert(QStringLiteral("newSessionId"), result.newSessionId);
                if (!result.ok)
                    out.insert(QStringLiteral("error"), result.error);
                done(out, result.ok ? ExitSuccess : ExitTransportFailure);
            });
    } else if (step == QLatin1String("kill")) {
        out.insert(QStringLiteral("sessionId"), m_connection->sessionId());
        m_connection->killTransport();
        done(out, ExitSuccess);
    } else if (step == QLatin1String("breaker")) {
        const QString what = words.value(1);
        if (what == QLatin1String("open"))
            m_connection->openBreaker();
        else if (what == QLatin1String("reset"))
            m_connection->resetBreaker();
        out.insert(QStringLiteral("state"), CircuitBreaker::stateName(m_connection->breaker()->state()));
        done(out, what == QLatin1String("open") || what == QLatin1String("reset") ? ExitSuccess : ExitUsage);
    } else if (step == QLatin1String("wait")) {
        const int ms = words.value(1).toInt();
        QTimer::singleShot(ms, this, [done, out] { done(out, ExitSuccess); });
    } else if (step == QLatin1String("fault")) {
        const QString name = words.value(1);
        int index = 2;
        int count = 1;
        bool isNumber = false;
        const int maybeCount = words.value(index).toInt(&isNumber);
        int delayMs = 0;
        if (name == QLatin1String("delay")) {
            delayMs = maybeCount;
            ++index;
            const int c = words.value(index).toInt(&isNumber);
            if (isNumber) {
                count = c;
                ++index;
            }
        } else if (isNumber) {
            count = maybeCount;
            ++index;
        }
        QString method;
        QString tool;
        for (const QString& arg : words.mid(index)) {
            if (arg.startsWith(QLatin1String("method=")))
                method = arg.mid(7);
            else if (arg.startsWith(QLatin1String("tool=")))
                tool = arg.mid(5);
        }
        out.insert(QStringLiteral("fault"), name);
        out.insert(QStringLiteral("count"), count);
        const bool stdio = m_connection->activeTransport() == TransportKind::Stdio;
        if (const std::optional<StdioFault> fault = stdio ? StdioFaultNames.fromName(name) : std::nullopt) {
            for (int i = 0; i < count; ++i)
                m_connection->armStdioFault(*fault, delayMs);
            done(out, ExitSuccess);
            return;
        }
        const auto kind = FaultProxy::kindFromName(name);
        if (!kind || stdio || !m_proxy) {
            out.insert(QStringLiteral("error"),
                !kind ? tr("unknown fault '%1'").arg(name)
                      : tr("fault '%1' needs an HTTP server behind --fault-proxy").arg(name));
            done(out, ExitUsage);
            return;
        }
        FaultProxy::Fault fault;
        fault.kind = *kind;
        fault.count = count;
        fault.method = method;
        fault.tool = tool;
        fault.delayMs = delayMs;
        out.insert(QStringLiteral("id"), qint64(m_proxy->arm(fault)));
        m_connection->noteEvent(QStringLiteral("action"), tr("armed fault %1 ×%2").arg(name).arg(count));
        done(out, ExitSuccess);
    }
}

} // namespace mcpscope
