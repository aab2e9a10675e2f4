#pragma once

// What the engine benchmarks share: a ServerConnection connected, or closed, inside a local event loop.

#include "engine/serverconnection.h"

#include <QEventLoop>
#include <QString>
#include <QTimer>

namespace mcpscope::bench {

/// Connects and waits for ready or failure; false (with *error set) on failure or after waitMs.
inline bool connectAndWait(ServerConnection& connection, QString* error, int waitMs = 30000)
{
    QEventLoop loop;
    bool ready = false;
    QObject::connect(&connection, &ServerConnection::ready, &loop, [&] {
        ready = true;
        loop.quit();
    });
    QObject::connect(&connection, &ServerConnection::failed, &loop, [&](const QString& message) {
        *error = message;
        loop.quit();
    });
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    connection.connectToServer();
    if (!ready)
        loop.exec();
    QObject::disconnect(&connection, nullptr, &loop, nullptr);
    if (!ready && error->isEmpty())
        *error = QStringLiteral("not ready within %1 s").arg(waitMs / 1000);
    return ready;
}

/// Disconnects and waits (at most 5 s) until the connection says it is closed.
inline void closeAndWait(ServerConnection& connection)
{
    if (connection.state() == ServerConnection::State::Disconnected)
        return;
    QEventLoop loop;
    QObject::connect(&connection, &ServerConnection::closed, &loop, &QEventLoop::quit);
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    connection.disconnectFromServer();
    loop.exec();
}

} // namespace mcpscope::bench
