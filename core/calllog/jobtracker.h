#pragma once

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

namespace mcpscope {

/// Runs one-off jobs off the GUI thread and hands their results back to a context object (hotspot's
/// JobTracker): a job id, a QPointer to the context and a queued invoke.
///
/// startJob() runs job() on a thread pool; when it returns, deliver(result) runs on the GUI thread,
/// unless the context was destroyed, or a later startJob() or reset() made the job stale meanwhile.
/// Results of stale jobs are dropped, so a view that restarts its job on every change shows the newest.
/// run() is the same queued invoke without the job id, for jobs whose results all count (one read per
/// request). The context must live on the GUI thread: results are delivered there.
class JobTracker
{
public:
    explicit JobTracker(QObject* context, QThreadPool* pool = nullptr)
        : m_context(context)
        , m_pool(pool)
    { }

    /// Runs job() (which takes no argument, or a `const std::function<bool()>&` that says whether the job
    /// became stale, so a long job can stop early) and delivers its result. Returns the job id.
    template <typename Job, typename Deliver> quint64 startJob(Job&& job, Deliver&& deliver)
    {
        const quint64 id = ++*m_current;
        m_running = true;
        auto current = m_current;
        QPointer<QObject> context = m_context;
        auto stale = [current, id] { return current->load() != id; };
        auto wrapped = [job = std::forward<Job>(job), stale]() mutable {
            if constexpr (std::is_invocable_v<Job&, const std::function<bool()>&>)
                return job(std::function<bool()>(stale));
            else
                return job();
        };
        run(m_pool, m_context, std::move(wrapped),
            [this, context, stale, deliver = std::forward<Deliver>(deliver)](auto&& result) mutable {
                // context owns or outlives the tracker, so a live context means a live tracker.
                if (!context || stale())
                    return;
                m_running = false;
                deliver(std::forward<decltype(result)>(result));
            });
        return id;
    }

    /// Drops the results of every job started so far.
    void reset()
    {
        ++*m_current;
        m_running = false;
    }

    /// A job was started and its result has not been delivered (nor dropped by reset()).
    bool isJobRunning() const { return m_running; }
    quint64 currentJob() const { return m_current->load(); }

    /// Runs job() on pool (the global pool when nullptr) and deliver(result) on the GUI thread if
    /// context still exists then.
    template <typename Job, typename Deliver>
    static void run(QThreadPool* pool, QObject* context, Job&& job, Deliver&& deliver)
    {
        QPointer<QObject> guard(context);
        (pool ? pool : QThreadPool::globalInstance())
            ->start([guard, job = std::forward<Job>(job), deliver = std::forward<Deliver>(deliver)]() mutable {
                auto result = std::make_shared<decltype(job())>(job());
                // Posted to the application object and checked there: the context may go away while the
                // result is in the queue, and a QPointer is only safe to test on the context's thread.
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [guard, result, deliver = std::move(deliver)]() mutable {
                        if (guard)
                            deliver(std::move(*result));
                    },
                    Qt::QueuedConnection);
            });
    }

private:
    QPointer<QObject> m_context;
    QThreadPool* m_pool = nullptr;
    std::shared_ptr<std::atomic<quint64>> m_current = std::make_shared<std::atomic<quint64>>(0);
    bool m_running = false;
};

} // namespace mcpscope
