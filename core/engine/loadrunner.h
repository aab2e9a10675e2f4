#pragma once

#include "calllog/callstats.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>

class QTimer;

namespace mcpscope {

class Engine;

/// What a load run calls, how hard and for how long (`mcpscope-cli load`, the app's Load… dialog).
struct LoadSpec
{
    QString tool;
    QJsonObject arguments;
    int concurrency = 1; ///< calls in flight at once
    int requests = 0; ///< stop after this many calls (0: no limit; then durationMs must be set)
    qint64 durationMs = 0; ///< start no call after this long (0: no limit)
    double rate = 0; ///< at most this many calls started per second, over the whole run (0: no limit)
    qint64 timeoutMs = 0; ///< per call; 0: the server's request timeout

    /// A fault armed before some calls, by name as the CLI's `fault` step knows it (expire-after,
    /// kill-after-write, delay, …): before every `every`-th call, one fault for that call's tool.
    struct Fault
    {
        QString name;
        int every = 1;
        int delayMs = 0;
    };
    std::optional<Fault> fault;

    /// Parses `NAME[:every=N][:ms=MS]` ("expire-after:every=100"). Does not check NAME against a server.
    static std::optional<Fault> parseFault(const QString& spec, QString* error);
};

/// Runs a load: LoadSpec::concurrency calls of one tool in flight at once, each through Engine::call, so
/// every call has its record, the breaker and the decision table (a write is never sent twice; an
/// ambiguous failure ends uncertain). Nothing here retries: the engine alone decides.
///
/// Signals: callFinished for every call's final record, in the order they end; finished once, after
/// start() when no more calls may start (requests done, duration over, or stop()) and the last one in
/// flight has ended.
class LoadRunner : public QObject
{
    Q_OBJECT
public:
    LoadRunner(Engine* engine, QString server, LoadSpec spec, QObject* parent = nullptr);
    ~LoadRunner() override;

    /// Checks the spec: a usage error in words, or empty.
    static QString validate(const LoadSpec& spec);

    void start();
    /// No call starts from now on; the calls in flight still end (and count).
    void stop();

    const LoadSpec& spec() const { return m_spec; }
    const CallStats& stats() const { return m_stats; }
    int started() const { return m_started; }
    int inFlight() const { return m_inFlight; }
    bool isRunning() const { return m_running; }
    /// From start() to now, or to the end of the last call once finished.
    qint64 elapsedMs() const;
    /// Finished calls per second of elapsedMs().
    double throughput() const;
    /// Why the spec's fault cannot be armed on this server (no such fault for its transport, no fault
    /// proxy in front of it), or empty. Check it before start(): such a fault is never armed.
    QString checkFault() const;

    /// The report object of `mcpscope-cli load --json`: tool, concurrency, requests, ok, toolErrors, errors,
    /// uncertain, breakerOpen, elapsedMs, throughput, latencyMs {min, mean, p50, p90, p99, max}, errorMessages.
    QJsonObject report() const;

Q_SIGNALS:
    void callFinished(const mcpscope::CallRecord& record);
    void finished();

private:
    bool mayStart() const;
    void pump();
    void launch();
    void armFault(int index);
    void maybeFinish();

    QPointer<Engine> m_engine;
    QString m_server;
    LoadSpec m_spec;
    /// The tools/call params, the same for every call: built once (a QJsonObject insert costs Qt 6.4 some
    /// 3,000 instructions, a fifth of a load call's own work when done per call).
    QJsonObject m_params;
    CallStats m_stats;
    QElapsedTimer m_clock;
    qint64 m_endedMs = -1;
    int m_started = 0;
    int m_inFlight = 0;
    bool m_running = false;
    bool m_stopped = false;
    bool m_pumping = false;
    QTimer* m_rateTimer = nullptr;
    QTimer* m_durationTimer = nullptr;
};

} // namespace mcpscope
