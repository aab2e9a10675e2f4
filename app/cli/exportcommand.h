#pragma once

#include <QObject>
#include <QStringList>
#include <QTextStream>

namespace mcpscope {

/// `mcpscope-cli export LOG --format jsonl|har|csv --out FILE [--server NAME]... [--tool NAME]...
/// [--outcome NAME]... [--text TEXT] [--config FILE]...`: reads a JSONL call log with CallLogReader, keeps the
/// records the filter accepts, redacts them (default sensitive headers, plus the secret values of every server
/// of each --config workspace: secretEnv values, credential header values, URL passwords) and writes them with
/// CallLogWriter
/// (JSONL, CSV) or HarWriter (HAR 1.2: the HTTP requests of their attempts).
///
/// stderr: one warning per skipped line, then "exported N of M call(s) to FILE" (for HAR followed by
/// " (K HTTP request(s))").
/// Exit codes: 0 written; 2 usage error (missing argument, unknown format or outcome);
/// 4 LOG unreadable or not a call log, or FILE not writable.
class ExportCommand : public QObject
{
    Q_OBJECT
public:
    explicit ExportCommand(QObject* parent = nullptr);
    ~ExportCommand() override;

    /// args: the words after "export". Runs synchronously and returns the exit code.
    int run(const QStringList& args);

private:
    QTextStream m_err;
};

} // namespace mcpscope
