#pragma once

#include "calllog/callrecord.h"
#include "config/serverconfig.h"

#include <QList>
#include <QStringList>

#include <functional>
#include <memory>

class QObject;

namespace mcpscope {

class TokenStore;

/// The secret values a token store keeps for servers, for an export: under each HTTP server's
/// "oauth/<resource>" entry its OAuth tokens (access and refresh) and a dynamic registration's client
/// secret, under its "client/<name>" entry the client secret the user gave.
///
/// A log written before a value was known to a redactor (an old log, or one a server echoed a token
/// into) is scrubbed of them when it is exported. A token the store no longer holds (rotated away by a
/// refresh, or forgotten) cannot be known this way.
namespace StoredSecrets {

/// secrets: every value found; problems: one text per entry the store could not read.
using Done = std::function<void(const QStringList& secrets, const QStringList& problems)>;

/// The HTTP servers a call log's own records name: each server with each URL its attempts went to, which is
/// where a token store keeps their tokens (the server URL of a Streamable HTTP POST).
QList<ServerConfig> serversOf(const QList<CallRecord>& records);

/// Reads the entries of every HTTP server in servers. done runs once: right away when there is nothing
/// to read, else on context's thread after the last read answered (dropped if context is gone first).
void read(const std::shared_ptr<TokenStore>& store, const QList<ServerConfig>& servers, QObject* context, Done done);

} // namespace StoredSecrets

} // namespace mcpscope
