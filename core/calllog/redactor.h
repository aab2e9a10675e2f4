#pragma once

#include "calllog/callrecord.h"
#include "calllog/namesearch.h"

#include <QByteArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <array>
#include <bitset>
#include <optional>

namespace mcpscope {

struct ServerConfig;

/// Removes secrets from call records and wire messages before they reach the call log.
///
/// Two kinds of secret are known:
/// - sensitive header names (Authorization, Cookie, Set-Cookie, Proxy-Authorization, plus names the
///   user marks): the value after "Name:" in text, the value of a JSON member with that name, and the
///   "value" of a {"name": Name, "value": …} object (a header in a wire exchange) become "[redacted]";
/// - secret values (env values of a server's secretEnv vars, values of its sensitive headers, the
///   userinfo of its URL, tokens obtained by OAuth): every occurrence of the value, anywhere, becomes
///   "[redacted]".
///
/// A Redactor is a value: configure it on one thread, then copies may be used from any thread.
class Redactor
{
public:
    Redactor();

    static QString placeholder() { return QStringLiteral("[redacted]"); }
    static QStringList defaultSensitiveHeaders();

    void addSensitiveHeader(const QString& name);
    /// Values shorter than 4 characters are ignored: replacing them would shred unrelated text.
    void addSecretValue(const QString& value);
    /// A credential as sent in a header ("Bearer abc"): the whole value, and the token after the scheme,
    /// which servers also echo alone (in a query or an error text).
    void addCredential(const QString& value);
    /// The userinfo of url: the password, "user:password", and their percent-encoded forms.
    void addUrl(const QUrl& url);
    /// The server's secretEnv values, its secretHeaders as sensitive names, the values of its sensitive
    /// headers and the userinfo of its URL.
    void addServer(const ServerConfig& config);
    bool hasSecretValues() const { return !m_values.isEmpty(); }

    QStringList sensitiveHeaders() const { return m_headers; }

    QString redactText(const QString& text) const;
    QJsonValue redactJson(const QJsonValue& value) const;
    QJsonObject redactRecord(const CallRecord& record) const;
    /// The compact JSON text of redactRecord(record). A record whose serialized text holds no sensitive
    /// name and no secret value is written as it is, without rebuilding the tree: the per-call cost of a
    /// JSONL log line on the path users run.
    QByteArray redactedRecordJson(const CallRecord& record) const;
    /// redactedRecordJson(record) appended to out (CallRecord::appendCompactJson).
    void appendRedactedRecordJson(QByteArray& out, const CallRecord& record) const;
    /// Redacts record in place, for records that stay in memory (the engine's signals, the views): a
    /// record in which a secret value occurs becomes what redactRecord() gives. Costs nothing while no
    /// secret value is known, one serialization otherwise.
    void scrubRecord(CallRecord& record) const;
    /// Returns bytes itself (no copy, no re-encoding) when nothing in it is secret.
    QByteArray redactWire(const QByteArray& bytes) const;
    /// Whether one of the secret values occurs in bytes (byte for byte, as in UTF-8 text). When it does not,
    /// and no sensitive header name occurs in them either, redactWire(bytes) returns bytes unchanged: a
    /// caller that has looked for the names already only needs this test on the common path.
    bool containsSecretValue(QByteArrayView bytes) const;
    /// The length in UTF-8 bytes of the longest secret value: how far a piecewise scan with
    /// containsSecretValue() must look back across the seam between two pieces.
    qsizetype longestSecretValue() const;
    /// Redacts a wire exchange in place: sensitive header values, and secrets in URLs, bodies and lines.
    void redactExchange(WireExchange& exchange) const;
    /// A search for the sensitive header names in UTF-8 text, ignoring ASCII case; null when a name is
    /// not ASCII (then only the full redaction is exact).
    const NameSearch* headerSearch() const { return m_headerSearch ? &*m_headerSearch : nullptr; }

private:
    void rebuild();
    bool isSensitiveName(const QString& name) const;
    /// isSensitiveName() of a Latin-1 header name, without making a QString of it.
    bool isSensitiveHeader(QByteArrayView name) const;
    bool mentionsHeader(QStringView text) const;
    /// A quick test on raw bytes: false when no sensitive name and no secret value is in them.
    bool mayHoldSecret(QByteArrayView bytes) const;

    QStringList m_headers;
    QStringList m_values;
    QList<QByteArray> m_headerBytes; ///< m_headers in Latin-1, lower case, for mayHoldSecret
    bool m_headersAscii = true; ///< every name in m_headers is ASCII: m_headerBytes compare exactly as Qt would
    std::array<bool, 256> m_headerFirst {}; ///< the first bytes of m_headerBytes, in either case
    std::bitset<65536> m_headerStart; ///< the first two bytes of m_headerBytes, in either case, as (b0 << 8) | b1
    std::optional<NameSearch> m_headerSearch; ///< over m_headerBytes, when m_headersAscii
    QList<QByteArray> m_valueBytes; ///< m_values in UTF-8, for mayHoldSecret
    QRegularExpression m_jsonMember; ///< "Authorization": "value" inside raw JSON text
    QRegularExpression m_headerLine; ///< Authorization: value, up to the line's (or JSON string's) end
};

} // namespace mcpscope
