#include "callrunner.h"

#include "calllog/callsummary.h"
#include "jsonrpc/protocolera.h"
#include "serverconnection.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <memory>

namespace mcpscope {

// MRTR, multi-round-trip requests of the 2026-07-28 revision (MCP-NOTES.md; RECOVERY.md §9): a tools/call,
// prompts/get or resources/read the server answers with resultType input_required. Each round is answered
// here and sent again as a new request of the same attempt; rounds are never retries.

namespace {
constexpr int MaxRounds = 10;
const QLatin1String RoundEventKind("round");

QString describeInputRequest(const QString& key, const QJsonObject& entry)
{
    const QString method = entry.value(QLatin1String("method")).toString();
    const QJsonObject params = entry.value(QLatin1String("params")).toObject();
    QString what = method;
    if (method == QLatin1String("elicitation/create")) {
        const QString message = params.value(QLatin1String("message")).toString();
        if (!message.isEmpty())
            what += QStringLiteral(" \"") + message.left(80) + QLatin1Char('"');
    } else if (method == QLatin1String("sampling/createMessage")) {
        what += QStringLiteral(" (%1 message(s))").arg(params.value(QLatin1String("messages")).toArray().size());
    }
    return key + QStringLiteral(": ") + what;
}
} // namespace

bool CallRunner::takeRound(const Reply& reply)
{
    ClientSession* session = m_session ? m_session.data() : m_connection->session();
    if (reply.status != Reply::Status::Ok || !session || !session->isModern())
        return false;
    const QJsonObject result = reply.resultObject();
    if (result.value(QLatin1String("resultType")).toString() != Modern::InputRequired)
        return false;
    CallRecord& r = m_record;
    const QJsonObject requests = result.value(QLatin1String("inputRequests")).toObject();
    const QJsonValue state = result.value(QLatin1String("requestState"));
    ++m_rounds;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_rounds > MaxRounds) {
        r.result = result;
        r.error = { { QStringLiteral("message"),
            tr("Server '%1' still asked for input after %2 rounds; McpScope stopped there (2026-07-28 MRTR).")
                .arg(r.server)
                .arg(MaxRounds) } };
        r.attempts.last().error = r.error.value(QLatin1String("message")).toString();
        finish(CallOutcome::ProtocolError);
        return true;
    }
    if (requests.isEmpty() && !state.isString()) {
        r.error = { { QStringLiteral("message"),
            tr("Server '%1' answered input_required with neither inputRequests nor requestState.").arg(r.server) } };
        r.attempts.last().error = r.error.value(QLatin1String("message")).toString();
        finish(CallOutcome::ProtocolError);
        return true;
    }
    QStringList asked;
    for (auto it = requests.constBegin(); it != requests.constEnd(); ++it)
        asked.append(describeInputRequest(it.key(), it.value().toObject()));
    noteEvent(now, RoundEventKind,
        asked.isEmpty() ? tr("round %1: the server asks to be called again with its requestState").arg(m_rounds)
                        : tr("round %1: the server asks for input before it answers: %2")
                              .arg(m_rounds)
                              .arg(asked.join(QStringLiteral("; "))));
    const quint64 token = ++m_roundToken;
    if (requests.isEmpty()) {
        sendRound({}, state);
        return true;
    }
    // Every answer is collected before the next round goes out; the first failure ends the call.
    auto answers = std::make_shared<QJsonObject>();
    auto left = std::make_shared<int>(int(requests.size()));
    const QPointer<CallRunner> self(this);
    for (auto it = requests.constBegin(); it != requests.constEnd(); ++it) {
        const QString key = it.key();
        const QJsonObject entry = it.value().toObject();
        const QString method = entry.value(QLatin1String("method")).toString();
        const JsonRpcMessage request = JsonRpcMessage::request(
            QStringLiteral("mrtr:%1:%2").arg(r.callId, key), method, entry.value(QLatin1String("params")).toObject());
        m_connection->answerInputRequest(r.callId, request,
            [self, token, key, method, answers, left, state](
                const QJsonValue& answer, const std::optional<JsonRpcError>& error) {
                const Frame frame;
                if (!self || self->m_finished || token != self->m_roundToken)
                    return;
                if (error) {
                    CallRecord& rec = self->m_record;
                    rec.error = error->toJson();
                    rec.error.insert(QStringLiteral("message"),
                        tr("McpScope did not answer the %1 that server '%2' asked for in round %3: %4")
                            .arg(method, rec.server)
                            .arg(self->m_rounds)
                            .arg(error->message));
                    rec.attempts.last().error = rec.error.value(QLatin1String("message")).toString();
                    ++self->m_roundToken;
                    // Nothing of this round was sent: the server ran only what it ran before it asked.
                    self->finish(CallOutcome::ProtocolError);
                    return;
                }
                answers->insert(key, answer);
                if (--*left == 0)
                    self->sendRound(*answers, state);
            });
    }
    return true;
}

void CallRunner::sendRound(const QJsonObject& inputResponses, const QJsonValue& requestState)
{
    if (m_finished)
        return;
    QJsonObject params = m_originalParams;
    if (!inputResponses.isEmpty())
        params.insert(QStringLiteral("inputResponses"), inputResponses);
    // Opaque to the client: echoed exactly as it came (a JSON string is re-encoded byte for byte).
    if (!requestState.isUndefined())
        params.insert(QStringLiteral("requestState"), requestState);
    m_params = params;
    noteEvent(QDateTime::currentMSecsSinceEpoch(), RoundEventKind,
        tr("round %1 answered: %2 sent again with a new id%3")
            .arg(m_rounds)
            .arg(m_record.method,
                inputResponses.isEmpty() ? QString() : tr(" and %1 input response(s)").arg(inputResponses.size())));
    resend();
}

void CallRunner::resend()
{
    send(attemptOptions());
}

void CallRunner::explainModernError(const Reply& reply)
{
    // Over HTTP the revision's refusals come as 4xx error bodies: the status is on the wire exchange.
    int status = reply.failure.httpStatus;
    if (!reply.exchange.http.isEmpty() && status == 0)
        status = reply.exchange.http.last().status;
    const QString why = Modern::explainError(reply.error, status, m_record.method);
    if (why.isEmpty())
        return;
    m_record.error.insert(QStringLiteral("explanation"), why);
    noteEvent(QDateTime::currentMSecsSinceEpoch(), QStringLiteral("explanation"), why);
}

} // namespace mcpscope
