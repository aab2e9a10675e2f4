// When an ended CallRunner may be deleted: CallRunner::Frame marks its code on the stack, and its
// connection deletes the runners that ended once none is (ServerConnection::retireRunner).

#include "callrunner.h"
#include "serverconnection.h"

#include <QTimer>

namespace mcpscope {

namespace {

/// How many entries into CallRunner code (Frame) are on this thread's stack.
thread_local int t_frames = 0;

} // namespace

CallRunner::Frame::Frame()
{
    ++t_frames;
}

CallRunner::Frame::~Frame()
{
    --t_frames;
}

bool CallRunner::onStack()
{
    return t_frames > 0;
}

void ServerConnection::retireRunner(CallRunner* runner)
{
    m_retiredRunners.push_back(runner);
    if (!m_runnerReaper) {
        m_runnerReaper = new QTimer(this);
        m_runnerReaper->setSingleShot(true);
        // Short, so that a burst of calls holds few ended runners; a timer that runs out wakes the
        // event loop through poll's timeout, which costs no call of its own.
        m_runnerReaper->setInterval(10);
        connect(m_runnerReaper, &QTimer::timeout, this, [this] {
            if (CallRunner::onStack())
                m_runnerReaper->start(); // a nested event loop under a runner's code: not yet
            else
                reapRunners();
        });
    }
    if (!m_runnerReaper->isActive())
        m_runnerReaper->start();
}

void ServerConnection::reapRunners()
{
    for (CallRunner* runner : std::exchange(m_retiredRunners, {}))
        delete runner;
}

} // namespace mcpscope
