#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace mcpscope {

/// Where OAuth tokens and client secrets are kept: the OS keychain (qtkeychain; the Secret Service on
/// Linux), never the workspace, the log, exports or settings (issue 13, MCP-NOTES "Authorization" §10).
/// Values are opaque bytes (OAuthClient stores JSON); keys are short ASCII strings such as
/// "oauth/<issuer>|<resource>" or "client/<server>". All operations are asynchronous; callbacks run on the
/// thread the store lives on, after the call returned, and are dropped when context is destroyed first.
class TokenStore : public QObject
{
    Q_OBJECT
public:
    using ReadDone = std::function<void(bool found, const QByteArray& value, const QString& error)>;
    using WriteDone = std::function<void(bool ok, const QString& error)>;

    using QObject::QObject;

    /// found false with an empty error: no such entry. A non-empty error names the store and what failed.
    virtual void read(const QString& key, QObject* context, ReadDone done) = 0;
    virtual void write(const QString& key, const QByteArray& value, QObject* context, WriteDone done) = 0;
    /// Removing a missing entry is ok.
    virtual void remove(const QString& key, QObject* context, WriteDone done) = 0;

    /// True for the keychain; false for the memory-only fallback, which loses everything at exit.
    virtual bool isPersistent() const = 0;
    /// For people: "the Secret Service (GNOME Keyring)", or "memory only: no keychain is available (…)".
    virtual QString description() const = 0;

    /// The keychain when one answers, else the memory-only store (isPersistent() false; the app and the CLI
    /// show description() as a warning). Probes the keychain with a blocking round trip of at most
    /// probeTimeoutMs, so call it once at start-up. MCPSCOPE_TOKEN_STORE=memory forces the fallback.
    static std::shared_ptr<TokenStore> createDefault(int probeTimeoutMs = 3000);
    static std::shared_ptr<TokenStore> createMemory(const QString& why);

Q_SIGNALS:
    /// An operation that was given no callback (done empty) failed (the keychain went away, access denied):
    /// the message names the store and what the entry is for. A failure with a callback goes to it alone.
    void problem(const QString& message);
};

} // namespace mcpscope
