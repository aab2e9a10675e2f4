#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

class QProcess;

namespace mcpscope {

/// Stops a child process and the process group it leads, without blocking: after a wait in which
/// the leader may end by itself, SIGTERM to the group, a grace period, then SIGKILL. The child must
/// have started in its own process group (setpgid(0, 0) in its child-process modifier), so the stop
/// reaches what it started (an `npx` wrapper and the real server under it).
///
/// Signals: finished once, when the leader has exited and no member of its group still runs; what
/// is left of the group (zombies, a member that ignored SIGTERM) gets a SIGKILL right before.
class ProcessGroupStop : public QObject
{
    Q_OBJECT
public:
    /// group: the leader's pid, which stays known after QProcess forgot it. process may be null (a
    /// child that never started): the stop then only reaps what runs in the group.
    ProcessGroupStop(QProcess* process, qint64 group, QObject* parent = nullptr);
    /// A stop that did not finish sends SIGKILL: a program exiting leaves nothing running.
    ~ProcessGroupStop() override;

    /// termAfterMs: how long the leader may take to end by itself before SIGTERM (a stdio child whose
    /// stdin was closed); graceMs: from SIGTERM to SIGKILL.
    void stop(int termAfterMs, int graceMs);
    /// SIGKILL on the next pass of the event loop.
    void kill();

    /// Hands a process whose owner goes away (and disconnected from it) to a stop of its own, which
    /// deletes itself and the process once finished: SIGTERM now and SIGKILL after graceMs, or with
    /// graceMs 0, SIGKILL now.
    static void detach(QProcess* process, qint64 group, int graceMs);
    /// For a main after its event loop returned and its windows and engine are gone: runs the event
    /// loop until every detached stop finished (a launched server gets its SIGTERM grace, and each
    /// leader is reaped before QProcess would warn about destroying it running), at most timeoutMs.
    /// Returns whether all finished.
    static bool finishDetached(int timeoutMs);

    static void signalGroup(qint64 group, int signal);
    /// Whether a member of the group still runs (zombies do not count).
    static bool groupRuns(qint64 group);

Q_SIGNALS:
    void finished();

private:
    void begin(int firstStep, int firstWaitMs, int graceMs);
    void onTimeout();
    void onLeaderFinished();
    void finish();
    bool leaderRunning() const;
    void killLeader();

    QPointer<QProcess> m_process;
    qint64 m_group = 0;
    QTimer m_timer;
    int m_step = 0; ///< 1: SIGTERM comes next; 2: SIGKILL comes next
    int m_graceMs = 0;
    bool m_started = false;
    bool m_finished = false;
};

} // namespace mcpscope
