#pragma once

#include "calllog/calllogfile.h"
#include "calllog/redactor.h"
#include "exitcodes.h"

#include <QObject>
#include <QStringList>
#include <QTextStream>

namespace mcpscope {

struct ServerConfig;

/// `mcpscope-cli export LOG --format jsonl|har|csv --out FILE [--server NAME]... [--tool NAME]...
/// [--outcome NAME]... [--text TEXT] [--config FILE]...`: reads a JSONL call log with CallLogReader, keeps the
/// records the filter accepts, redacts them and writes them with CallLogWriter (JSONL, CSV) or HarWriter
/// (HAR 1.2: the HTTP requests of their attempts).
///
/// The redactor knows the default sensitive headers; the secret values of every server of each --config
/// workspace (secretEnv values, credential header values, URL passwords); and what the token store keeps
/// for each HTTP server of those workspaces and of the log itself (OAuth access and refresh tokens, client
/// secrets; StoredSecrets). A log written before those values were known is scrubbed of them too.
///
/// stderr: one warning per skipped line, then "exported N of M call(s) to FILE" (for HAR followed by
/// " (K HTTP request(s))").
/// Exit codes: 0 written; 2 usage error (missing argument, unknown format or outcome; LOG missing, a
/// directory or not a call log); 4 FILE not writable.
class ExportCommand : public QObject
{
    Q_OBJECT
public:
    explicit ExportCommand(QObject* parent = nullptr);
    ~ExportCommand() override;

    /// args: the words after "export". Returns the exit code, or ExitStillRunning while the token store
    /// is read; finished(exitCode) follows then.
    int start(const QStringList& args);

Q_SIGNALS:
    void finished(int exitCode);

private:
    /// Reads the token store's secrets of every HTTP server in the workspaces and the log, then writes.
    int readStoredSecrets(const QList<ServerConfig>& configured);
    int write();

    QTextStream m_err;
    Redactor m_redactor;
    CallLogFilter m_filter;
    CallLogReadResult m_log;
    QString m_logPath;
    QString m_outPath;
    QString m_format;
    int m_exitCode = ExitStillRunning;
    bool m_readingStore = false;
};

} // namespace mcpscope
