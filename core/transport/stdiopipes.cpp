#include "stdiopipes.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <utility>

namespace mcpscope::stdiopipes {

void closeFd(int& fd)
{
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// "9 (SIGKILL)": the number alone means little to most people, the name alone hides what the
// kernel reported.
QString signalDescription(int signal)
{
    static const std::pair<int, const char*> names[] = { { SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
        { SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
        { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" },
        { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" }, { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
        { SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" } };
    for (const auto& [number, name] : names) {
        if (number == signal)
            return QString::number(signal) + QStringLiteral(" (") + QLatin1String(name) + QLatin1Char(')');
    }
    return QString::number(signal);
}

// Fds 0-2 would be overwritten in the child by QProcess's own redirections before ours.
bool moveAboveStdio(int& fd)
{
    if (fd > STDERR_FILENO)
        return true;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    ::close(fd);
    fd = moved;
    return moved >= 0;
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which by default kills us; QProcess
// does not ignore it (it resets it to the default in its children either way). The default is
// replaced by SIG_IGN, once for the process. A handler someone installed (a crash reporter,
// QtTest's) stays: then SIGPIPE is blocked around each of our writes instead. Returns whether
// writes need that.
bool writesNeedSigpipeBlocked()
{
    struct sigaction current = {};
    if (::sigaction(SIGPIPE, nullptr, &current) != 0)
        return true;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN)
        return false;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL) {
        struct sigaction ignore = {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        return ::sigaction(SIGPIPE, &ignore, nullptr) != 0;
    }
    return true;
}

// write() without SIGPIPE reaching a handler: the signal an EPIPE raises stays blocked and is
// taken back, as Qt's own qt_safe_write_nosignal() does.
ssize_t writeWithSigpipeBlocked(int fd, const char* data, size_t size)
{
    sigset_t pipeSet;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    sigset_t oldSet;
    ::pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
    sigset_t pending;
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool wasPending = sigismember(&pending, SIGPIPE);
    const ssize_t n = ::write(fd, data, size);
    const int error = errno;
    if (n < 0 && error == EPIPE && !wasPending) {
        const struct timespec noWait = {};
        while (::sigtimedwait(&pipeSet, nullptr, &noWait) < 0 && errno == EINTR) { }
    }
    ::pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
    errno = error;
    return n;
}
} // namespace mcpscope::stdiopipes
