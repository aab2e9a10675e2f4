#pragma once

// Connecting a workspace's server in a GUI test the way a user does: select it in the window, connect, wait
// until the session is ready and has listed its tools.

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"

#include <QTest>

namespace mcpscope::test {

/// Selects server name in window and connects it; the connection once it is ready with its tools listed
/// (within timeoutMs), else nullptr.
inline ServerConnection* selectAndConnect(MainWindow* window, const QString& name, int timeoutMs = 30000)
{
    window->selectServer(name);
    ServerConnection* c = window->engine()->connection(name);
    if (!c)
        return nullptr;
    c->connectToServer();
    if (!QTest::qWaitFor(
            [c] { return c->state() == ServerConnection::State::Ready && c->session() && c->session()->toolsListed(); },
            timeoutMs))
        return nullptr;
    return c;
}

} // namespace mcpscope::test
