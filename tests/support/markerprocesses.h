#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QUuid>

namespace mcpscope::testsupport {

/// The environment variable integration tests hand to stdio children, so they can tell afterwards
/// whether anything the child started is still running.
inline QString markerVariable()
{
    return QStringLiteral("MCPSCOPE_TEST_MARKER");
}

inline QString newMarker()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

/// "pid: command line" of every live process whose environment holds MCPSCOPE_TEST_MARKER=marker.
/// Zombies have an empty environ, so only processes that still run are listed. Processes of other
/// users cannot be read and are skipped; tests only look for their own children.
inline QStringList processesWithMarker(const QString& marker)
{
    const QByteArray needle = markerVariable().toUtf8() + '=' + marker.toUtf8();
    QStringList found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile environ(QStringLiteral("/proc/") + entry + QStringLiteral("/environ"));
        if (!environ.open(QIODevice::ReadOnly))
            continue;
        if (!environ.readAll().split('\0').contains(needle))
            continue;
        QFile cmdline(QStringLiteral("/proc/") + entry + QStringLiteral("/cmdline"));
        QByteArray command;
        if (cmdline.open(QIODevice::ReadOnly))
            command = cmdline.readAll().replace('\0', ' ').trimmed();
        found.append(entry + QStringLiteral(": ") + QString::fromUtf8(command));
    }
    return found;
}

} // namespace mcpscope::testsupport
