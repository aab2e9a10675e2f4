#pragma once

#include "auth/tokenstore.h"

#include <QHash>

namespace mcpscope {

/// The explicit fallback when no keychain answers (and the store of a conformance run): a hash in this
/// process, lost at exit. It never fails; callbacks are still queued, as the keychain's are.
class MemoryTokenStore final : public TokenStore
{
    Q_OBJECT
public:
    /// why: for people, after "memory only: " in description(), such as "no keychain is available (…)".
    explicit MemoryTokenStore(const QString& why, QObject* parent = nullptr);

    void read(const QString& key, QObject* context, ReadDone done) override;
    void write(const QString& key, const QByteArray& value, QObject* context, WriteDone done) override;
    void remove(const QString& key, QObject* context, WriteDone done) override;

    bool isPersistent() const override { return false; }
    QString description() const override;

private:
    QString m_why;
    QHash<QString, QByteArray> m_entries;
};

} // namespace mcpscope
