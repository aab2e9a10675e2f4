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

} // namespace mcpscope
