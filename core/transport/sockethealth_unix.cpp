#include "sockethealth.h"

#include <cerrno>
#include <sys/socket.h>

namespace mcpscope {

bool SocketHealth::idlePeerGone(qintptr descriptor)
{
    if (descriptor < 0)
        return true;
    char byte = 0;
    const ssize_t n = ::recv(int(descriptor), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0)
        return true; // orderly shutdown: the server closed its side
    if (n > 0)
        return true; // bytes nobody asked for (or a TLS alert): not a connection to write a request on
    return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

qint64 SocketHealth::sendNow(qintptr descriptor, const char* data, qint64 size)
{
    qint64 sent = 0;
    while (descriptor >= 0 && sent < size) {
        const ssize_t n = ::send(int(descriptor), data + sent, size_t(size - sent), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0)
            sent += n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else
            return sent > 0 ? sent : -1;
    }
    return sent;
}

} // namespace mcpscope
