#include "socketreset.h"

#include <QAbstractSocket>

#ifdef Q_OS_WIN
#include <winsock2.h>
#else
#include <sys/socket.h>
#endif

namespace mcpscope {

bool resetConnection(QAbstractSocket* socket)
{
    bool set = false;
    const qintptr descriptor = socket->socketDescriptor();
    if (descriptor != -1) {
        linger option {};
        option.l_onoff = 1;
        option.l_linger = 0;
#ifdef Q_OS_WIN
        set = ::setsockopt(
                  SOCKET(descriptor), SOL_SOCKET, SO_LINGER, reinterpret_cast<const char*>(&option), int(sizeof option))
            == 0;
#else
        set = ::setsockopt(int(descriptor), SOL_SOCKET, SO_LINGER, &option, socklen_t(sizeof option)) == 0;
#endif
    }
    socket->abort();
    return set;
}

} // namespace mcpscope
