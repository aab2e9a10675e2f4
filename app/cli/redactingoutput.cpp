#include "redactingoutput.h"

#include <cstdio>

namespace mcpscope {

RedactingOutput::RedactingOutput(int fd)
{
    // Unbuffered: a line reaches the terminal (or the pipe) when the stream above is flushed.
    m_target.open(fd, QIODevice::WriteOnly | QIODevice::Unbuffered);
    open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

RedactingOutput* RedactingOutput::standardOutput()
{
    static RedactingOutput* out = new RedactingOutput(fileno(stdout));
    return out;
}

RedactingOutput* RedactingOutput::standardError()
{
    static RedactingOutput* err = new RedactingOutput(fileno(stderr));
    return err;
}

Redactor& RedactingOutput::redactor()
{
    static Redactor instance;
    return instance;
}

void RedactingOutput::setRedactor(const Redactor& redactor)
{
    RedactingOutput::redactor() = redactor;
}

qint64 RedactingOutput::readData(char*, qint64)
{
    return -1;
}

qint64 RedactingOutput::writeData(const char* data, qint64 size)
{
    const QByteArray redacted = redactor().redactWire(QByteArray::fromRawData(data, size));
    const char* bytes = redacted.constData();
    qint64 left = redacted.size();
    while (left > 0) {
        const qint64 written = m_target.write(bytes, left);
        if (written <= 0)
            return -1;
        bytes += written;
        left -= written;
    }
    return size;
}

} // namespace mcpscope
