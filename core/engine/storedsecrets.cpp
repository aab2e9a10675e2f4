#include "storedsecrets.h"

#include "auth/oauthclient.h"
#include "auth/tokenstore.h"
#include "config/serverconfig.h"
#include "serverauth.h"

#include <QSet>

namespace mcpscope {

QList<ServerConfig> StoredSecrets::serversOf(const QList<CallRecord>& records)
{
    QList<ServerConfig> servers;
    QSet<QString> seen;
    for (const CallRecord& record : records) {
        for (const CallAttempt& attempt : record.attempts) {
            for (const HttpExchange& http : attempt.exchange.http) {
                const QUrl url(http.url);
                const QString key = record.server + QLatin1Char(' ') + http.url;
                if (!url.isValid() || !url.scheme().startsWith(QLatin1String("http")) || seen.contains(key))
                    continue;
                seen.insert(key);
                ServerConfig server;
                server.name = record.server;
                server.transport = TransportKind::AutoHttp;
                server.url = url;
                servers.append(server);
            }
        }
    }
    return servers;
}

void StoredSecrets::read(
    const std::shared_ptr<TokenStore>& store, const QList<ServerConfig>& servers, QObject* context, Done done)
{
    QStringList keys;
    for (const ServerConfig& server : servers) {
        if (!server.isHttp() || !server.url.isValid())
            continue;
        keys << OAuthClient::credentialsKeyFor(server.url) << ServerAuth::clientKeyFor(server.name);
    }
    keys.removeDuplicates();
    if (!store || keys.isEmpty()) {
        done({}, {});
        return;
    }
    struct Reads
    {
        /// A store answers only while it lives: a caller's own store may go before the answers come.
        std::shared_ptr<TokenStore> store;
        qsizetype left = 0;
        QStringList secrets;
        QStringList problems;
        Done done;
    };
    auto reads = std::make_shared<Reads>();
    reads->store = store;
    reads->left = keys.size();
    reads->done = std::move(done);
    for (const QString& key : std::as_const(keys)) {
        const bool tokens = key.startsWith(QLatin1String("oauth/"));
        store->read(key, context, [reads, tokens](bool found, const QByteArray& value, const QString& error) {
            if (!error.isEmpty())
                reads->problems.append(error);
            if (found)
                reads->secrets += tokens ? OAuthClient::secretsIn(value) : ServerAuth::secretsInClientEntry(value);
            if (--reads->left == 0) {
                reads->done(reads->secrets, reads->problems);
                reads->store.reset();
            }
        });
    }
}

} // namespace mcpscope
