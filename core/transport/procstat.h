#pragma once

#include <QDir>
#include <QFile>
#include <QList>

#include <optional>
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

/// Linux: the process pid (name: its /proc entry), or nullopt when it is gone or there is no /proc.
/// /proc/PID/stat reads "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, so the
/// fields start after the last ')'.
inline std::optional<ProcStat> readProcStat(pid_t pid, const QString& name)
{
    QFile stat(QStringLiteral("/proc/") + name + QStringLiteral("/stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 3)
        return std::nullopt;
    return ProcStat { pid, pid_t(fields.at(1).toInt()), fields.at(2).toLongLong(),
        fields.at(0) == "Z" || fields.at(0) == "X" };
}

/// Linux: every process in /proc; empty where there is no /proc.
inline QList<ProcStat> readProcStats()
{
    QList<ProcStat> processes;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        const pid_t pid = pid_t(entry.toInt(&isPid));
        if (!isPid)
            continue;
        if (const std::optional<ProcStat> process = readProcStat(pid, entry))
            processes.append(*process);
    }
    return processes;
}

} // namespace mcpscope
