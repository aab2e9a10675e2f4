#include "regularfile.h"

#include "jsonrpc/translation.h"

#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcpscope {

namespace {

QString notRegular(mode_t mode)
{
    if (S_ISDIR(mode))
        return McpScope::tr("it is a directory, not a regular file");
    if (S_ISFIFO(mode))
        return McpScope::tr("it is a FIFO (named pipe), not a regular file");
    if (S_ISSOCK(mode))
        return McpScope::tr("it is a socket, not a regular file");
    if (S_ISCHR(mode))
        return McpScope::tr("it is a character device, not a regular file");
    if (S_ISBLK(mode))
        return McpScope::tr("it is a block device, not a regular file");
    return McpScope::tr("it is not a regular file");
}

} // namespace

bool RegularFile::open(const QString& path, QFile* file, QString* reason)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat info
    { };
    if (::stat(native.constData(), &info) != 0) {
        *reason = qt_error_string(errno);
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        *reason = notRegular(info.st_mode);
        return false;
    }
    int fd = -1;
    do {
        fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *reason = qt_error_string(errno);
        return false;
    }
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        *reason = S_ISREG(info.st_mode) ? qt_error_string(errno) : notRegular(info.st_mode);
        ::close(fd);
        return false;
    }
    if (!file->open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        *reason = file->errorString();
        ::close(fd);
        return false;
    }
    return true;
}

} // namespace mcpscope
