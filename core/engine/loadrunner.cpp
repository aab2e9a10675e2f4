#include "loadrunner.h"

#include "engine.h"
#include "fault/faultproxy.h"
#include "fault/stdiofault.h"
#include "serverconnection.h"

#include <QTimer>

#include <cmath>

namespace mcpscope {

std::optional<LoadSpec::Fault> LoadSpec::parseFault(const QString& spec, QString* error)
{
    const QStringList parts = spec.split(QLatin1Char(':'));
    Fault fault;
    fault.name = parts.first().trimmed();
    if (fault.name.isEmpty()) {
        *error = QObject::tr("--fault needs NAME[:every=N][:ms=MS], not '%1'").arg(spec);
        return std::nullopt;
    }
    for (const QString& part : parts.mid(1)) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        const QString key = part.left(eq);
        bool ok = false;
        const int value = eq > 0 ? part.mid(eq + 1).toInt(&ok) : 0;
        if (eq <= 0 || !ok || value < (key == QLatin1String("ms") ? 0 : 1)
            || (key != QLatin1String("every") && key != QLatin1String("ms"))) {
            *error = QObject::tr("--fault: '%1' is not every=N (N ≥ 1) or ms=MS, in '%2'").arg(part, spec);
            return std::nullopt;
        }
        (key == QLatin1String("every") ? fault.every : fault.delayMs) = value;
    }
    return fault;
}

LoadRunner::LoadRunner(Engine* engine, QString server, LoadSpec spec, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_server(std::move(server))
    , m_spec(std::move(spec))
    , m_params { { QStringLiteral("name"), m_spec.tool }, { QStringLiteral("arguments"), m_spec.arguments } }
    , m_rateTimer(new QTimer(this))
    , m_durationTimer(new QTimer(this))
{
    m_rateTimer->setSingleShot(true);
    m_rateTimer->setTimerType(Qt::PreciseTimer);
    connect(m_rateTimer, &QTimer::timeout, this, &LoadRunner::pump);
    m_durationTimer->setSingleShot(true);
    m_durationTimer->setTimerType(Qt::PreciseTimer);
    connect(m_durationTimer, &QTimer::timeout, this, [this] {
        m_stopped = true;
        maybeFinish();
    });
}

LoadRunner::~LoadRunner() = default;

QString LoadRunner::validate(const LoadSpec& spec)
{
    if (spec.tool.isEmpty())
        return tr("load needs a tool name");
    if (spec.concurrency < 1)
        return tr("--concurrency must be at least 1");
    if ((spec.requests > 0) == (spec.durationMs > 0))
        return tr("load needs exactly one of --duration SECONDS and --requests N");
    if (spec.rate < 0)
        return tr("--rate must not be negative");
    return {};
}

void LoadRunner::start()
{
    if (m_running || m_endedMs >= 0)
        return;
    m_running = true;
    m_clock.start();
    if (m_spec.durationMs > 0)
        m_durationTimer->start(int(std::min<qint64>(m_spec.durationMs, std::numeric_limits<int>::max())));
    pump();
}

void LoadRunner::stop()
{
    m_stopped = true;
    m_rateTimer->stop();
    maybeFinish();
}

qint64 LoadRunner::elapsedMs() const
{
    if (m_endedMs >= 0)
        return m_endedMs;
    return m_clock.isValid() ? m_clock.elapsed() : 0;
}

double LoadRunner::throughput() const
{
    const qint64 elapsed = elapsedMs();
    return elapsed > 0 ? double(m_stats.count()) * 1000.0 / double(elapsed) : 0.0;
}

bool LoadRunner::mayStart() const
{
    if (!m_running || m_stopped || !m_engine)
        return false;
    if (m_spec.requests > 0 && m_started >= m_spec.requests)
        return false;
    return m_spec.durationMs <= 0 || m_clock.elapsed() < m_spec.durationMs;
}

void LoadRunner::pump()
{
    // A call may end inside Engine::call (an open breaker, an unknown server); its done comes back here
    // through a queued pump, so a run of fast failures never recurses or starves the event loop.
    if (m_pumping)
        return;
    m_pumping = true;
    while (m_inFlight < m_spec.concurrency && mayStart()) {
        if (m_spec.rate > 0) {
            const auto dueMs = qint64(std::floor(double(m_started) * 1000.0 / m_spec.rate));
            const qint64 wait = dueMs - m_clock.elapsed();
            if (wait > 0) {
                if (!m_rateTimer->isActive())
                    m_rateTimer->start(int(wait));
                break;
            }
        }
        launch();
    }
    m_pumping = false;
    maybeFinish();
}

void LoadRunner::launch()
{
    const int index = m_started++;
    ++m_inFlight;
    if (m_spec.fault && (index + 1) % m_spec.fault->every == 0)
        armFault(index);
    CallOptions options;
    options.timeoutMs = m_spec.timeoutMs;
    const QPointer<LoadRunner> self(this);
    const qint64 sentNs = m_clock.nsecsElapsed();
    m_engine->call(m_server, QStringLiteral("tools/call"), m_params, options, [self, sentNs](const CallRecord& record) {
        if (!self)
            return;
        --self->m_inFlight;
        // The record's times are whole milliseconds; a load wants the call's latency finer than that.
        self->m_stats.add(record, double(self->m_clock.nsecsElapsed() - sentNs) / 1e6);
        Q_EMIT self->callFinished(record);
        if (self->m_pumping)
            QMetaObject::invokeMethod(self, &LoadRunner::pump, Qt::QueuedConnection);
        else
            self->pump();
    });
}

QString LoadRunner::checkFault() const
{
    if (!m_spec.fault)
        return {};
    const ServerConnection* connection = m_engine ? m_engine->connection(m_server) : nullptr;
    if (!connection)
        return tr("no server named '%1'").arg(m_server);
    const QString& name = m_spec.fault->name;
    if (connection->activeTransport() == TransportKind::Stdio)
        return StdioFaultNames.fromName(name) ? QString()
                                              : tr("fault '%1' is not one of a stdio server's (%2)")
                                                    .arg(name, QStringLiteral("kill-after-write, close-stdin, delay"));
    if (!FaultProxy::kindFromName(name))
        return tr("unknown fault '%1' (one of: %2)").arg(name, FaultProxy::kindNames().join(QStringLiteral(", ")));
    return connection->faultProxy() ? QString() : tr("fault '%1' needs the server behind a fault proxy").arg(name);
}

void LoadRunner::armFault(int index)
{
    ServerConnection* connection = m_engine->connection(m_server);
    if (!connection || !checkFault().isEmpty())
        return;
    const LoadSpec::Fault& spec = *m_spec.fault;
    if (connection->activeTransport() == TransportKind::Stdio) {
        connection->armStdioFault(*StdioFaultNames.fromName(spec.name), spec.delayMs);
    } else {
        FaultProxy::Fault fault;
        fault.kind = *FaultProxy::kindFromName(spec.name);
        fault.tool = m_spec.tool;
        fault.delayMs = spec.delayMs;
        connection->faultProxy()->arm(fault);
    }
    connection->noteEvent(
        QStringLiteral("action"), tr("load: armed fault %1 before call %2").arg(spec.name).arg(index + 1));
}

void LoadRunner::maybeFinish()
{
    // With a rate, a call that may still start is waiting for its turn on m_rateTimer.
    if (!m_running || m_inFlight > 0 || mayStart())
        return;
    m_running = false;
    m_rateTimer->stop();
    m_durationTimer->stop();
    m_endedMs = m_clock.elapsed();
    Q_EMIT finished();
}

QJsonObject LoadRunner::report() const
{
    return QJsonObject {
        { QStringLiteral("tool"), m_spec.tool },
        { QStringLiteral("concurrency"), m_spec.concurrency },
        { QStringLiteral("requests"), m_stats.count() },
        { QStringLiteral("ok"), m_stats.ok() },
        { QStringLiteral("toolErrors"), m_stats.toolErrors() },
        { QStringLiteral("errors"), m_stats.errors() },
        { QStringLiteral("uncertain"), m_stats.uncertain() },
        { QStringLiteral("breakerOpen"), m_stats.breakerOpen() },
        { QStringLiteral("elapsedMs"), elapsedMs() },
        { QStringLiteral("throughput"), std::round(throughput() * 100) / 100 },
        { QStringLiteral("latencyMs"), m_stats.latency().toJson() },
        { QStringLiteral("errorMessages"), m_stats.topErrorsJson() },
    };
}

} // namespace mcpscope
