#pragma once

#include <QString>

class QSqlError;

namespace mcpscope {

/// What went wrong with the call log at path, in words that name the file: locked, read-only, full (the
/// disk, or this process's file size limit), damaged, or not a call log. Shared by the store's writer and
/// LogStoreReader.
QString describeLogStoreError(const QString& path, const QSqlError& error);

} // namespace mcpscope
