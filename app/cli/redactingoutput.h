#pragma once

#include "calllog/redactor.h"

#include <QFile>
#include <QIODevice>

namespace mcpscope {

/// The CLI's standard output and standard error: every byte written passes through the process's
/// redactor first, so no command can print a secret the engine knows, whatever text it prints
/// (results, error texts, server stderr, log notifications, URLs).
///
/// Each write is redacted whole; the CLI writes whole lines or messages and flushes after them, so a
/// secret is never split between two writes (a QTextStream that fills its buffer could split one).
class RedactingOutput : public QIODevice
{
    Q_OBJECT
public:
    static RedactingOutput* standardOutput();
    static RedactingOutput* standardError();
    /// The secrets both devices remove from now on.
    static void setRedactor(const Redactor& redactor);

protected:
    qint64 readData(char* data, qint64 maxSize) override;
    qint64 writeData(const char* data, qint64 size) override;

private:
    explicit RedactingOutput(int fd);
    static Redactor& redactor();

    QFile m_target;
};

} // namespace mcpscope
