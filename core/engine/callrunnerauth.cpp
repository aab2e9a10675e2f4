// A call that has to wait for authorization before, or after, it is sent (RECOVERY.md §4, R2/R3): the
// wait, what the timeline notes of it, and the wait for a session once credentials have come.

#include "callrunner.h"

#include "recovery/circuitbreaker.h"
#include "serverconnection.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace mcpscope {

void CallRunner::waitForAuthorization()
{
    // The server cannot be reached without credentials the user has to provide: nothing is sent until
    // they come, and the wait is R2's (RECOVERY.md §4), so a flow left running keeps running.
    const qint64 waitMs = authWaitMs();
    m_record.decisions.append({ 0, QStringLiteral("R2"), QStringLiteral("wait"),
        tr("Server '%1' needs authorization before anything can be sent; waiting for it (at most %2 s).")
            .arg(m_record.server)
            .arg(double(waitMs) / 1000.0, 0, 'f', 1) });
    m_record.rule = QStringLiteral("R2");
    publish();
    const qint64 started = QDateTime::currentMSecsSinceEpoch();
    m_connection->auth()->ensure(
        m_connection->authChallenge(), waitMs, this, [this, started](bool ok, const QString& error) {
            const Frame frame;
            if (m_finished)
                return;
            if (!authorizationEnded(ok, error, started, FailureKind::AuthRequired))
                return;
            whenReady(healWaitMs(), [this](bool ready) {
                if (ready) {
                    startAttempt();
                    return;
                }
                m_record.error = { { QStringLiteral("message"),
                                       tr("Server '%1' was authorized, but no session became ready: %2")
                                           .arg(m_record.server, m_connection->lastError()) },
                    { QStringLiteral("dispatch"), QStringLiteral("not_dispatched") } };
                m_connection->breaker()->releaseProbe();
                finish(CallOutcome::NotDispatched);
            });
        });
}

bool CallRunner::authorizationEnded(bool ok, const QString& error, qint64 started, FailureKind kind)
{
    m_record.events.append({ QDateTime::currentMSecsSinceEpoch(), QStringLiteral("auth"),
        ok ? tr("authorized in %1 ms").arg(QDateTime::currentMSecsSinceEpoch() - started)
           : tr("authorization did not finish: %1").arg(error) });
    if (ok)
        return true;
    m_record.error = { { QStringLiteral("message"), error }, { QStringLiteral("failureKind"), failureKindName(kind) },
        { QStringLiteral("dispatch"), QStringLiteral("not_dispatched") } };
    // Wanting credentials says nothing about the server's health: no strike.
    m_connection->breaker()->releaseProbe();
    finish(CallOutcome::NeedsAuth);
    return false;
}

void CallRunner::whenReady(qint64 waitMs, std::function<void(bool ready)> next)
{
    // The connection connects by itself once it is authorized (ServerConnection::enableAuth).
    ClientSession* session = m_connection->session();
    if (session && session->isReady()) {
        next(true);
        return;
    }
    auto done = std::make_shared<bool>(false);
    auto once = [this, done, next](bool ready) {
        const Frame frame;
        if (std::exchange(*done, true) || m_finished)
            return;
        next(ready);
    };
    connect(m_connection, &ServerConnection::ready, this, [once] { once(true); });
    connect(m_connection, &ServerConnection::failed, this, [once] { once(false); });
    QTimer::singleShot(int(waitMs), this, [once] { once(false); });
}

} // namespace mcpscope
