#include "oauthwire.h"

#include "oauthclient.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace mcpscope {

QByteArray OAuthWire::base64Url(const QByteArray& bytes)
{
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray OAuthWire::randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    QRandomGenerator* generator = QRandomGenerator::system();
    for (char& byte : bytes)
        byte = char(generator->bounded(256));
    return bytes;
}

// application/x-www-form-urlencoded by hand: QUrlQuery leaves '+' alone, which a form decoder reads as a space.
QByteArray OAuthWire::formEncode(const QList<QPair<QString, QString>>& pairs)
{
    QByteArray out;
    for (const auto& [key, value] : pairs) {
        if (!out.isEmpty())
            out += '&';
        out += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    return out;
}

QUrl OAuthWire::withQuery(QUrl url, const QList<QPair<QString, QString>>& pairs)
{
    QByteArray query = url.query(QUrl::FullyEncoded).toLatin1();
    const QByteArray extra = formEncode(pairs);
    query = query.isEmpty() ? extra : query + '&' + extra;
    url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    return url;
}

QUrl OAuthWire::origin(const QUrl& url)
{
    QUrl o;
    o.setScheme(url.scheme());
    o.setHost(url.host());
    o.setPort(url.port());
    return o;
}

QString OAuthWire::trimmedPath(const QUrl& url)
{
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

QUrl OAuthWire::originWithPath(const QUrl& url, const QString& path)
{
    QUrl result = origin(url);
    result.setPath(path);
    return result;
}

bool OAuthWire::isHttpUrl(const QUrl& url)
{
    return url.isValid() && !url.host().isEmpty()
        && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"));
}

QStringList OAuthWire::scopeList(const QString& scope)
{
    return scope.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

QStringList OAuthWire::stringArray(const QJsonValue& value)
{
    QStringList list;
    for (const QJsonValue& item : value.toArray()) {
        if (item.isString())
            list.append(item.toString());
    }
    return list;
}

QString OAuthWire::oauthErrorText(const QJsonObject& json, const QByteArray& body)
{
    const QString error = json.value(QLatin1String("error")).toString();
    const QString description = json.value(QLatin1String("error_description")).toString();
    if (!error.isEmpty())
        return description.isEmpty() ? error : error + QStringLiteral(": ") + description;
    return QString::fromUtf8(body.left(200)).simplified();
}

const QStringList& OAuthWire::secretParameters()
{
    static const QStringList names { QStringLiteral("access_token"), QStringLiteral("refresh_token"),
        QStringLiteral("id_token"), QStringLiteral("code"), QStringLiteral("code_verifier"),
        QStringLiteral("client_secret"), QStringLiteral("assertion"), QStringLiteral("client_assertion"),
        QStringLiteral("subject_token"), QStringLiteral("registration_access_token"), QStringLiteral("token"),
        QStringLiteral("idp_id_token"), QStringLiteral("private_key_pem") };
    return names;
}

QString OAuthWire::maskSecrets(const QString& text)
{
    static const QRegularExpression patterns[] = {
        // "name": "value" in JSON
        QRegularExpression(QStringLiteral("(\"(?:%1)\"\\s*:\\s*)\"(?:[^\"\\\\]|\\\\.)*\"")
                               .arg(secretParameters().join(QLatin1Char('|')))),
        // name=value in a form body or a query
        QRegularExpression(
            QStringLiteral("((?:^|[?&\\s])(?:%1)=)[^&\\s#]*").arg(secretParameters().join(QLatin1Char('|')))),
        // credential headers
        QRegularExpression(QStringLiteral("((?:Authorization|Proxy-Authorization|Cookie|DPoP)\\s*:[ \\t]*)[^\\r\\n]+"),
            QRegularExpression::CaseInsensitiveOption),
    };
    QString masked = text;
    masked.replace(patterns[0], QStringLiteral("\\1\"[redacted]\""));
    masked.replace(patterns[1], QStringLiteral("\\1[redacted]"));
    masked.replace(patterns[2], QStringLiteral("\\1[redacted]"));
    return masked;
}

BearerChallenge BearerChallenge::parse(const QByteArray& header)
{
    BearerChallenge result;
    qsizetype pos = 0;
    const qsizetype n = header.size();
    bool inBearer = false; // inside the parameters of a Bearer or a DPoP challenge
    bool inDpop = false;
    auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    auto isDelimiter = [&](char c) { return isSpace(c) || c == ',' || c == '='; };
    while (pos < n) {
        while (pos < n && (isSpace(header.at(pos)) || header.at(pos) == ','))
            ++pos;
        const qsizetype start = pos;
        while (pos < n && !isDelimiter(header.at(pos)))
            ++pos;
        const QByteArray token = header.mid(start, pos - start);
        if (token.isEmpty()) {
            ++pos; // a stray '=' (token68 padding); skip it
            continue;
        }
        qsizetype look = pos;
        while (look < n && isSpace(header.at(look)))
            ++look;
        if (look >= n || header.at(look) != '=') {
            // A new challenge's scheme. Parameters up to the next scheme belong to it.
            inDpop = token.compare("DPoP", Qt::CaseInsensitive) == 0;
            inBearer = inDpop || token.compare("Bearer", Qt::CaseInsensitive) == 0;
            result.isBearer = result.isBearer || (inBearer && !inDpop);
            result.isDpop = result.isDpop || inDpop;
            continue;
        }
        pos = look + 1;
        while (pos < n && isSpace(header.at(pos)))
            ++pos;
        QByteArray value;
        if (pos < n && header.at(pos) == '"') {
            ++pos;
            while (pos < n && header.at(pos) != '"') {
                if (header.at(pos) == '\\' && pos + 1 < n)
                    ++pos;
                value += header.at(pos);
                ++pos;
            }
            ++pos; // closing quote
        } else {
            const qsizetype valueStart = pos;
            while (pos < n && header.at(pos) != ',' && !isSpace(header.at(pos)))
                ++pos;
            value = header.mid(valueStart, pos - valueStart);
        }
        if (!inBearer)
            continue;
        const QByteArray key = token.toLower();
        if (key == "error")
            result.error = QString::fromUtf8(value);
        else if (key == "scope")
            result.scope = QString::fromUtf8(value).simplified();
        else if (key == "resource_metadata")
            result.resourceMetadata = QUrl(QString::fromUtf8(value));
        else if (key == "algs" && inDpop)
            result.dpopAlgs = QString::fromUtf8(value).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }
    return result;
}

} // namespace mcpscope
