#pragma once

#include <QDir>
#include <QFile>
#include <QList>

#include <sys/types.h>

namespace mcpscope {

/// One process as /proc/PID/stat shows it.
struct ProcStat
{
    pid_t pid = 0;
    pid_t ppid = 0;
    qint64 group = 0;
    bool zombie = false; ///< state Z or X: exited, not yet reaped
};

/// Linux: every process in /proc; empty where there is no /proc. /proc/PID/stat reads
/// "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, so the fields start after
/// the last ')'.
inline QList<ProcStat> readProcStats()
{
    QList<ProcStat> processes;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        const pid_t pid = pid_t(entry.toInt(&isPid));
        if (!isPid)
            continue;
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 3)
            continue;
        processes.append({ pid, pid_t(fields.at(1).toInt()), fields.at(2).toLongLong(),
            fields.at(0) == "Z" || fields.at(0) == "X" });
    }
    return processes;
}

} // namespace mcpscope
