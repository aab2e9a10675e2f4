#pragma once

#include <QString>

class QFile;

namespace mcpscope {

/// Opening a file the user named, for reading, without ever blocking: a FIFO with no writer blocks
/// open() until one comes, a device can stream forever, and either stalls a caller before its event
/// loop runs (so SIGTERM is not even heard). Only regular files are opened: the path is checked with
/// stat() first, opened O_NONBLOCK, and checked again on the descriptor in case it was swapped between.
namespace RegularFile {

/// Opens path read-only into file. On failure returns false and sets *reason to why, in words
/// without the path ("it is a FIFO (named pipe), not a regular file"), so callers can name it their way.
bool open(const QString& path, QFile* file, QString* reason);

} // namespace RegularFile

} // namespace mcpscope
