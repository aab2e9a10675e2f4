#include "logstoreerror.h"

#include "jsonrpc/translation.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSqlError>
#include <QStorageInfo>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#endif

namespace mcpscope {

namespace {
// Primary SQLite result codes (sqlite3.h); the Qt driver reports them as nativeErrorCode().
enum SqliteCode {
    SqliteBusy = 5,
    SqliteLocked = 6,
    SqliteReadOnly = 8,
    SqliteIoErr = 10,
    SqliteCorrupt = 11,
    SqliteFull = 13,
    SqliteCantOpen = 14,
    SqliteNotADb = 26,
};

int sqliteCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    if (ok)
        return code & 0xff;
    // Some driver errors (a failed COMMIT) carry SQLite's message but no code: sqlite3_errstr()'s texts.
    const QString text = error.databaseText();
    if (text.contains(QLatin1String("database or disk is full")))
        return SqliteFull;
    if (text.contains(QLatin1String("disk I/O error")))
        return SqliteIoErr;
    if (text.contains(QLatin1String("database is locked")))
        return SqliteBusy;
    if (text.contains(QLatin1String("readonly database")))
        return SqliteReadOnly;
    return -1;
}

/// Why writing path may fail for lack of room: a file size limit of this process (ulimit -f) the log
/// has reached, or a disk without free space. Empty when neither is the case.
QString spaceProblem(const QString& path)
{
#ifdef Q_OS_UNIX
    rlimit limit {};
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        // A page or a WAL frame that does not fit is what fails, so "near the limit" counts.
        constexpr qint64 Slack = 64 * 1024;
        const qint64 largest = std::max(QFileInfo(path).size(), QFileInfo(path + QStringLiteral("-wal")).size());
        if (largest + Slack >= qint64(limit.rlim_cur))
            return McpScope::tr("the file size limit of %1 bytes is reached (the disk is full for this process)")
                .arg(qint64(limit.rlim_cur));
    }
#endif
    const QStorageInfo storage(QFileInfo(path).absolutePath());
    if (storage.isValid() && storage.bytesAvailable() >= 0 && storage.bytesAvailable() < 1024 * 1024)
        return McpScope::tr("the disk is full");
    return {};
}

} // namespace

QString describeLogStoreError(const QString& path, const QSqlError& error)
{
    switch (sqliteCode(error)) {
    case SqliteNotADb:
        return McpScope::tr("%1 is not a call log: the file is not an SQLite database").arg(path);
    case SqliteCorrupt:
        return McpScope::tr("%1 is damaged: %2").arg(path, error.databaseText());
    case SqliteBusy:
    case SqliteLocked:
        return McpScope::tr("%1 is locked by another process").arg(path);
    case SqliteReadOnly:
        return McpScope::tr("%1 is read-only; McpScope cannot write its call log there").arg(path);
    case SqliteFull: {
        const QString why = spaceProblem(path);
        return McpScope::tr("Cannot write the call log %1: %2")
            .arg(path, why.isEmpty() ? McpScope::tr("the disk is full") : why);
    }
    case SqliteIoErr: {
        // A write refused for lack of room is an I/O error when not even a partial write fit.
        const QString why = spaceProblem(path);
        if (!why.isEmpty())
            return McpScope::tr("Cannot write the call log %1: %2").arg(path, why);
        return McpScope::tr("Cannot write the call log %1: %2").arg(path, error.databaseText());
    }
    case SqliteCantOpen:
        return McpScope::tr("Cannot open the call log %1: %2").arg(path, error.databaseText());
    default:
        break;
    }
    return McpScope::tr("Call log %1: %2").arg(path, error.text());
}
} // namespace mcpscope
