#pragma once

// Test support: a loopback port for a peer to listen on.

#include <QHostAddress>
#include <QTcpServer>

namespace mcpscope::test {

/// A loopback port that was free a moment ago.
inline quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace mcpscope::test
