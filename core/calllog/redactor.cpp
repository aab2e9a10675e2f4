#include "redactor.h"

#include "config/serverconfig.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace mcpscope {

namespace {
constexpr qsizetype MinSecretLength = 4;

/// How value appears inside a JSON string literal, so a secret is found in raw JSON text too.
QString jsonEscaped(const QString& value)
{
    const QByteArray array = QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact);
    // ["..."] -> ...
    return QString::fromUtf8(array.mid(2, array.size() - 4));
}
} // namespace

Redactor::Redactor()
    : m_headers(defaultSensitiveHeaders())
{
    rebuild();
}

QStringList Redactor::defaultSensitiveHeaders()
{
    // DPoP: a proof (RFC 9449) is a signed credential too; replayed within its lifetime it may be taken.
    return { QStringLiteral("Authorization"), QStringLiteral("Proxy-Authorization"), QStringLiteral("Cookie"),
        QStringLiteral("Set-Cookie"), QStringLiteral("DPoP") };
}

void Redactor::addSensitiveHeader(const QString& name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || isSensitiveName(trimmed))
        return;
    m_headers.append(trimmed);
    rebuild();
}

void Redactor::addSecretValue(const QString& value)
{
    if (value.size() < MinSecretLength)
        return;
    for (const QString& form : { value, jsonEscaped(value) }) {
        if (!m_values.contains(form))
            m_values.append(form);
    }
    // Longest first, so a secret that contains another is replaced whole.
    std::sort(m_values.begin(), m_values.end(), [](const QString& a, const QString& b) { return a.size() > b.size(); });
    m_valueBytes.clear();
    for (const QString& form : std::as_const(m_values))
        m_valueBytes.append(form.toUtf8());
}

void Redactor::addCredential(const QString& value)
{
    addSecretValue(value.trimmed());
    const qsizetype space = value.trimmed().indexOf(QLatin1Char(' '));
    if (space > 0)
        addSecretValue(value.trimmed().mid(space + 1).trimmed());
}

void Redactor::addUrl(const QUrl& url)
{
    const QString password = url.password(QUrl::FullyDecoded);
    const QString encodedPassword = url.password(QUrl::FullyEncoded);
    addSecretValue(password);
    addSecretValue(encodedPassword);
    if (url.userName().isEmpty())
        return;
    // QUrl::userInfo() refuses FullyDecoded: build the decoded form from its parts.
    addSecretValue(url.userName(QUrl::FullyDecoded) + QLatin1Char(':') + password);
    addSecretValue(url.userInfo(QUrl::FullyEncoded));
}

void Redactor::addServer(const ServerConfig& config)
{
    for (const QString& name : config.secretEnv)
        addSecretValue(config.env.value(name));
    for (const QString& name : config.secretHeaders)
        addSensitiveHeader(name);
    for (const auto& [name, value] : config.headers) {
        if (isSensitiveName(name))
            addCredential(value);
    }
    addUrl(config.url);
    addSecretValue(config.oauthClientSecret);
}

void Redactor::rebuild()
{
    QStringList escaped;
    m_headerBytes.clear();
    m_headerStart.reset();
    m_headerFirst.fill(false);
    m_headersAscii = true;
    for (const QString& name : std::as_const(m_headers)) {
        escaped.append(QRegularExpression::escape(name));
        m_headersAscii
            = m_headersAscii && std::all_of(name.cbegin(), name.cend(), [](QChar c) { return c.unicode() < 0x80; });
        const QByteArray bytes = name.toLatin1().toLower();
        if (bytes.isEmpty())
            continue;
        m_headerBytes.append(bytes);
        const uchar first = uchar(bytes.at(0));
        for (const uint b0 : { uint(first), uint(QChar::toUpper(first)) & 0xff }) {
            m_headerFirst[b0] = true;
            if (bytes.size() == 1) {
                for (uint b1 = 0; b1 < 256; ++b1)
                    m_headerStart.set((b0 << 8) | b1);
                continue;
            }
            const uchar second = uchar(bytes.at(1));
            m_headerStart.set((b0 << 8) | second);
            m_headerStart.set((b0 << 8) | (uint(QChar::toUpper(second)) & 0xff));
        }
    }
    m_headerSearch.reset();
    if (m_headersAscii)
        m_headerSearch.emplace(m_headerBytes);
    const QString names = escaped.join(QLatin1Char('|'));
    m_jsonMember = QRegularExpression(QStringLiteral("(\"(?:%1)\"\\s*:\\s*)\"(?:[^\"\\\\]|\\\\.)*\"").arg(names),
        QRegularExpression::CaseInsensitiveOption);
    // A value ends at a line break, at a quote or at a backslash: the end of a header line, of a JSON
    // string, or an escaped line break inside raw JSON.
    m_headerLine
        = QRegularExpression(QStringLiteral("\\b((?:%1)\\s*:[ \\t]*)(?!\\[redacted\\])[^\\r\\n\"\\\\]+").arg(names),
            QRegularExpression::CaseInsensitiveOption);
}

bool Redactor::isSensitiveName(const QString& name) const
{
    return m_headers.contains(name, Qt::CaseInsensitive);
}

bool Redactor::isSensitiveHeader(QByteArrayView name) const
{
    if (!m_headersAscii)
        return isSensitiveName(QString::fromLatin1(name));
    // No Latin-1 character folds onto an ASCII letter, so for ASCII names this is Qt's CaseInsensitive.
    for (const QByteArray& header : m_headerBytes) {
        if (header.size() == name.size() && qstrnicmp(header.constData(), name.data(), size_t(name.size())) == 0)
            return true;
    }
    return false;
}

bool Redactor::mentionsHeader(QStringView text) const
{
    const auto byQt = [this, text] {
        for (const QString& name : m_headers) {
            if (text.contains(name, Qt::CaseInsensitive))
                return true;
        }
        return false;
    };
    if (!m_headersAscii)
        return byQt();
    // One pass with mayHoldSecret's tables over the UTF-16 units, comparing only where a name could start:
    // QString::contains(…, Qt::CaseInsensitive) once per name was a twentieth of an HTTP call (a URL and
    // an error text per exchange, bench_httpecho under callgrind). Qt's case folding maps two characters
    // outside ASCII onto ASCII letters (U+017F to s, U+212A to k): a text holding one goes Qt's way.
    const char16_t* data = text.utf16();
    const qsizetype size = text.size();
    const auto nameAt = [&](qsizetype at, const QByteArray& name) {
        if (name.size() > size - at)
            return false;
        for (qsizetype k = 0; k < name.size(); ++k) {
            const char16_t unit = data[at + k];
            if (unit >= 0x80)
                return false;
            const char lower = unit >= u'A' && unit <= u'Z' ? char(unit + 32) : char(unit);
            if (lower != name.at(k))
                return false;
        }
        return true;
    };
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = data[i];
        if (unit == 0x017f || unit == 0x212a)
            return byQt();
        if (unit > 0xff || !m_headerFirst[unit])
            continue;
        // A unit beyond Latin-1 next cannot be a name's second character; a one-letter name pairs with 0.
        const char16_t next = i + 1 < size ? data[i + 1] : 0;
        if (!m_headerStart.test((uint(unit) << 8) | (next > 0xff ? 0u : uint(next))))
            continue;
        for (const QByteArray& name : m_headerBytes) {
            if (nameAt(i, name))
                return true;
        }
    }
    return false;
}

QString Redactor::redactText(const QString& text) const
{
    QString out = text;
    for (const QString& value : m_values)
        out.replace(value, placeholder());
    if (mentionsHeader(out)) {
        out.replace(m_jsonMember, QStringLiteral("\\1\"[redacted]\""));
        out.replace(m_headerLine, QStringLiteral("\\1[redacted]"));
    }
    return out;
}

QJsonValue Redactor::redactJson(const QJsonValue& value) const
{
    switch (value.type()) {
    case QJsonValue::String:
        return redactText(value.toString());
    case QJsonValue::Array: {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            array[i] = redactJson(array.at(i));
        return array;
    }
    case QJsonValue::Object: {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (isSensitiveName(it.key()))
                it.value() = placeholder();
            else
                it.value() = redactJson(it.value());
        }
        // A header in a list, as wire exchanges and HAR keep them: {"name": "Cookie", "value": "…"}.
        const QJsonValue name = object.value(QLatin1String("name"));
        if (name.isString() && object.contains(QLatin1String("value")) && isSensitiveName(name.toString()))
            object.insert(QLatin1String("value"), placeholder());
        return object;
    }
    default:
        return value;
    }
}

QJsonObject Redactor::redactRecord(const CallRecord& record) const
{
    return redactJson(record.toJson()).toObject();
}

QByteArray Redactor::redactedRecordJson(const CallRecord& record) const
{
    QByteArray json;
    appendRedactedRecordJson(json, record);
    return json;
}

void Redactor::appendRedactedRecordJson(QByteArray& out, const CallRecord& record) const
{
    const qsizetype at = out.size();
    record.appendCompactJson(out);
    // As in the log store's encoder: no hit means redactRecord() would return the record unchanged.
    if (!mayHoldSecret(QByteArrayView(out).sliced(at)))
        return;
    const QByteArray json = out.sliced(at);
    if (redactWire(json) == json)
        return;
    out.truncate(at);
    out.append(QJsonDocument(redactRecord(record)).toJson(QJsonDocument::Compact));
}

void Redactor::scrubRecord(CallRecord& record) const
{
    if (m_valueBytes.isEmpty())
        return;
    const QByteArray json = record.toCompactJson();
    if (!containsSecretValue(json))
        return;
    record = CallRecord::fromJson(redactRecord(record));
}

bool Redactor::mayHoldSecret(QByteArrayView bytes) const
{
    // Header names are ASCII: as Latin-1 they match exactly where they match in the UTF-8 text. One pass
    // with a table of the names' first two bytes, comparing only where a name could start: this runs over
    // every record and wire body of every call, and QLatin1String::contains(…, Qt::CaseInsensitive)
    // compared at every position (a fifth of the instructions of a call on the real path, bench_stdiocall
    // under callgrind). A one-byte name matches any second byte; the last byte pairs with a zero.
    // ASCII names (the usual case): Horspool's search, which looks at a fraction of the bytes. The loop
    // below was 6.5% of a call on the real path (bench_stdiocall under perf).
    if (m_headerSearch)
        return m_headerSearch->foundIn(bytes) || containsSecretValue(bytes);
    const auto* data = reinterpret_cast<const uchar*>(bytes.data());
    const qsizetype size = bytes.size();
    for (qsizetype i = 0; i < size; ++i) {
        // Most bytes cannot start a name: a tight loop over a 256-entry table passes them first, 2.5 times
        // the pace of the two-byte test alone (a 20 MB text answer: 31 ms to 13 on the GUI thread).
        while (i < size && !m_headerFirst[data[i]])
            ++i;
        if (i == size)
            break;
        const uint next = i + 1 < size ? data[i + 1] : 0;
        if (!m_headerStart.test((uint(data[i]) << 8) | next))
            continue;
        for (const QByteArray& name : m_headerBytes) {
            if (name.size() <= size - i && qstrnicmp(bytes.data() + i, name.constData(), size_t(name.size())) == 0)
                return true;
        }
    }
    return containsSecretValue(bytes);
}

bool Redactor::containsSecretValue(QByteArrayView bytes) const
{
    for (const QByteArray& value : m_valueBytes) {
        if (bytes.contains(value))
            return true;
    }
    return false;
}

qsizetype Redactor::longestSecretValue() const
{
    qsizetype longest = 0;
    for (const QByteArray& value : m_valueBytes)
        longest = std::max(longest, value.size());
    return longest;
}

QByteArray Redactor::redactWire(const QByteArray& bytes) const
{
    // The common case, on the path of every call: nothing to find, so no decoding at all.
    if (!mayHoldSecret(bytes))
        return bytes;
    const QString text = QString::fromUtf8(bytes);
    const QString redacted = redactText(text);
    if (redacted == text)
        return bytes;
    return redacted.toUtf8();
}

void Redactor::redactExchange(WireExchange& exchange) const
{
    // On the path of every call, and usually nothing changes: each field is redacted into a copy that
    // shares its data, and only a change detaches the field, its list and the exchange's list.
    const auto redactBytes = [this](QByteArray& bytes) {
        QByteArray redacted = redactWire(bytes);
        if (redacted.isSharedWith(bytes))
            return false;
        bytes = std::move(redacted);
        return true;
    };
    const auto redactString = [this](QString& text) {
        QString redacted = redactText(text);
        if (redacted.isSharedWith(text) || redacted == text)
            return false;
        text = std::move(redacted);
        return true;
    };
    const auto redactHeaders = [this](WireHeaders& headers) {
        bool changed = false;
        for (qsizetype i = 0; i < headers.size(); ++i) {
            const auto& [name, value] = std::as_const(headers)[i];
            QByteArray redacted = isSensitiveHeader(name) ? placeholder().toLatin1() : redactWire(value);
            if (redacted.isSharedWith(value) || redacted == value)
                continue;
            headers[i].second = std::move(redacted);
            changed = true;
        }
        return changed;
    };
    for (qsizetype i = 0; i < exchange.http.size(); ++i) {
        HttpExchange http = std::as_const(exchange.http)[i];
        // | rather than ||: every field is redacted, whatever the ones before it did.
        const bool changed = redactString(http.url) | redactHeaders(http.requestHeaders)
            | redactHeaders(http.responseHeaders) | redactBytes(http.requestBody) | redactBytes(http.responseBody)
            | redactBytes(http.answerOnStream) | redactString(http.error);
        if (changed)
            exchange.http[i] = std::move(http);
    }
    for (qsizetype i = 0; i < exchange.stdio.size(); ++i) {
        QByteArray line = std::as_const(exchange.stdio)[i].line;
        if (redactBytes(line))
            exchange.stdio[i].line = std::move(line);
    }
}

} // namespace mcpscope
