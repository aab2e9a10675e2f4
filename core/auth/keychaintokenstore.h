#pragma once

#include "auth/tokenstore.h"

namespace QKeychain {
class Job;
}

namespace mcpscope {

/// The OS keychain through qtkeychain: the Secret Service on Linux, the Keychain on macOS, the Credential
/// Manager on Windows. Every entry lives under the service "McpScope" with the store's key as its key
/// (on the Secret Service: attributes server=McpScope, user=<key>); values are stored as binary, so any
/// bytes round-trip. qtkeychain runs one job at a time, so operations finish in the order they were made.
/// Never falls back to a plain-text file (qtkeychain's insecure fallback stays off).
class KeychainTokenStore final : public TokenStore
{
    Q_OBJECT
public:
    /// The qtkeychain service name of every entry.
    static QString serviceName();
    /// The keychain of this platform, for people: "the Secret Service", "the macOS Keychain", …
    static QString keychainName();

    /// Writes, reads back and deletes a probe entry, waiting at most timeoutMs in a local event loop.
    /// True when the keychain answered all three correctly; otherwise *why says what failed.
    static bool probe(int timeoutMs, QString* why);

    /// description: what description() returns, such as "the Secret Service (GNOME Keyring)".
    explicit KeychainTokenStore(const QString& description, QObject* parent = nullptr);

    void read(const QString& key, QObject* context, ReadDone done) override;
    void write(const QString& key, const QByteArray& value, QObject* context, WriteDone done) override;
    void remove(const QString& key, QObject* context, WriteDone done) override;

    bool isPersistent() const override { return true; }
    QString description() const override;

    /// The keychain's name with the program that provides it when it can be told (the owner of
    /// org.freedesktop.secrets on the session bus): "the Secret Service (GNOME Keyring)".
    static QString detectDescription();

private:
    /// The message for a failed job: names the store and what the entry is for, never its value.
    QString failure(const QString& action, const QString& key, const QKeychain::Job* job) const;
    /// Delivers how a write or remove job ended to done (or problem() without one), then starts it.
    void finishWrite(QKeychain::Job* job, const QString& key, QObject* context, WriteDone done, const QString& action,
        bool missingIsOk);

    QString m_description;
};

} // namespace mcpscope
