#include "trafficmodel.h"

#include "engine/engine.h"
#include "jsonrpc/enumnames.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

namespace mcpscope {

namespace {

/// Bounds the open-request table when requests are never answered.
constexpr qsizetype MaxOpenRequests = 10000;

/// What a cheap scan of a message's top-level keys found. Views point into the scanned bytes.
struct Scan
{
    TrafficMessageKind kind = TrafficMessageKind::Other;
    QByteArrayView method; ///< raw string contents, escapes not decoded
    QByteArrayView id; ///< a number's text, or a string's raw contents
    bool idIsString = false;
    bool idIsNumber = false;
};

/// Walks one JSON value at a time without building any of it: a message's "result" may be megabytes,
/// and only "method" and "id" are wanted. Malformed input ends the scan with what was found so far.
class Scanner
{
public:
    explicit Scanner(QByteArrayView bytes)
        : m_p(bytes.data())
        , m_end(bytes.data() + bytes.size())
    { }

    Scan scan()
    {
        Scan result;
        skipSpace();
        if (atEnd())
            return result;
        if (*m_p == '[') {
            result.kind = TrafficMessageKind::Batch;
            return result;
        }
        if (*m_p != '{')
            return result;
        ++m_p;
        bool hasResult = false;
        bool hasError = false;
        while (true) {
            skipSpace();
            QByteArrayView key;
            if (!string(&key))
                break;
            skipSpace();
            if (atEnd() || *m_p != ':')
                break;
            ++m_p;
            skipSpace();
            if (atEnd())
                break;
            if (key == "method" && *m_p == '"') {
                if (!string(&result.method))
                    break;
            } else if (key == "id" && *m_p == '"') {
                if (!string(&result.id))
                    break;
                result.idIsString = true;
            } else if (key == "id" && (*m_p == '-' || (*m_p >= '0' && *m_p <= '9'))) {
                const char* start = m_p;
                if (!skipValue())
                    break;
                result.id = QByteArrayView(start, m_p - start);
                result.idIsNumber = true;
            } else {
                hasResult = hasResult || key == "result";
                hasError = hasError || key == "error";
                if (!skipValue())
                    break;
            }
            skipSpace();
            if (atEnd() || *m_p != ',')
                break;
            ++m_p;
        }
        const bool hasId = result.idIsString || result.idIsNumber;
        if (!result.method.isEmpty())
            result.kind = hasId ? TrafficMessageKind::Request : TrafficMessageKind::Notification;
        else if (hasError)
            result.kind = TrafficMessageKind::ErrorResponse;
        else if (hasResult || hasId)
            result.kind = TrafficMessageKind::Response;
        return result;
    }

private:
    bool atEnd() const { return m_p >= m_end; }

    void skipSpace()
    {
        while (!atEnd() && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    /// At an opening quote: the raw contents up to the closing quote, which is consumed.
    bool string(QByteArrayView* contents)
    {
        if (atEnd() || *m_p != '"')
            return false;
        const char* start = ++m_p;
        // memchr to each quote, which ends the string unless an odd run of backslashes escapes it: a 20 MB
        // text result is passed at memory speed, not a byte at a time.
        while (!atEnd()) {
            const auto* quote = static_cast<const char*>(std::memchr(m_p, '"', size_t(m_end - m_p)));
            if (!quote)
                break;
            const char* run = quote;
            while (run > start && run[-1] == '\\')
                --run;
            m_p = quote + 1;
            if ((quote - run) % 2 == 0) {
                *contents = QByteArrayView(start, quote - start);
                return true;
            }
        }
        m_p = m_end;
        return false;
    }

    bool skipValue()
    {
        if (atEnd())
            return false;
        if (*m_p == '"') {
            QByteArrayView ignored;
            return string(&ignored);
        }
        if (*m_p == '{' || *m_p == '[') {
            int depth = 0;
            while (!atEnd()) {
                const char c = *m_p;
                if (c == '"') {
                    QByteArrayView ignored;
                    if (!string(&ignored))
                        return false;
                    continue;
                }
                if (c == '{' || c == '[') {
                    ++depth;
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        ++m_p;
                        return true;
                    }
                }
                ++m_p;
            }
            return false;
        }
        const char* start = m_p;
        while (!atEnd() && *m_p != ',' && *m_p != '}' && *m_p != ']' && *m_p != ' ' && *m_p != '\t' && *m_p != '\n'
            && *m_p != '\r')
            ++m_p;
        return m_p > start;
    }

    const char* m_p;
    const char* m_end;
};

/// The text of a JSON string's raw contents; the rare string with escapes goes through the JSON parser.
QString decodeString(QByteArrayView raw)
{
    if (!raw.contains('\\'))
        return QString::fromUtf8(raw);
    const QByteArray wrapped = "[\"" + raw.toByteArray() + "\"]";
    return QJsonDocument::fromJson(wrapped).array().at(0).toString();
}

std::optional<qint64> parseInteger(QByteArrayView text)
{
    bool ok = false;
    const qint64 value = QByteArray::fromRawData(text.data(), text.size()).toLongLong(&ok);
    return ok ? std::optional<qint64>(value) : std::nullopt;
}

QByteArray requestKey(quint32 server, WireDirection direction, const Scan& scan)
{
    QByteArray key;
    key.reserve(6 + scan.id.size());
    key.append(char(direction));
    key.append(scan.idIsString ? 's' : 'n');
    key.append(reinterpret_cast<const char*>(&server), sizeof(server));
    key.append(scan.id);
    return key;
}

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

quint32 clampSize(qsizetype size)
{
    return quint32(std::min<qsizetype>(size, std::numeric_limits<quint32>::max()));
}

} // namespace

TrafficModel::TrafficModel(QObject* parent)
    : QAbstractTableModel(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(0);
    connect(&m_flushTimer, &QTimer::timeout, this, &TrafficModel::flush);
}

TrafficModel::~TrafficModel() = default;

Engine* TrafficModel::engine() const
{
    return m_engine;
}

void TrafficModel::setEngine(Engine* engine)
{
    if (m_engine == engine)
        return;
    if (m_engine)
        disconnect(m_engine, nullptr, this, nullptr);
    m_engine = engine;
    if (!engine)
        return;
    connect(engine, &Engine::traffic, this, &TrafficModel::addMessage);
    connect(engine, &Engine::serverLog, this, &TrafficModel::addServerLog);
    connect(engine, &Engine::notice, this, &TrafficModel::addNotice);
    connect(engine, &Engine::actionLogged, this, &TrafficModel::addAction);
}

void TrafficModel::setRowLimit(int rows)
{
    m_rowLimit = qMax(1, rows);
    flush();
}

void TrafficModel::setByteLimit(qint64 bytes)
{
    m_byteLimit = qMax<qint64>(0, bytes);
    flush();
}

namespace {
// MCP's logging levels (RFC 5424 names), compared without case.
constexpr EnumName<TrafficLogLevel> LogLevelEntries[] = {
    { TrafficLogLevel::Debug, u"debug" },
    { TrafficLogLevel::Info, u"info" },
    { TrafficLogLevel::Notice, u"notice" },
    { TrafficLogLevel::Warning, u"warning" },
    { TrafficLogLevel::Error, u"error" },
    { TrafficLogLevel::Critical, u"critical" },
    { TrafficLogLevel::Alert, u"alert" },
    { TrafficLogLevel::Emergency, u"emergency" },
};
constexpr EnumNames<TrafficLogLevel> LogLevelNames(LogLevelEntries);
} // namespace

TrafficLogLevel TrafficModel::logLevelFromName(QStringView name)
{
    return LogLevelNames.fromName(name, Qt::CaseInsensitive).value_or(TrafficLogLevel::NoLevel);
}

void TrafficModel::addMessage(const QString& server, WireDirection direction, const QByteArray& bytes)
{
    Row row;
    row.at = now();
    row.payload = bytes;
    row.size = clampSize(bytes.size());
    row.server = m_strings.intern(server);
    row.direction = direction == WireDirection::Outgoing ? TrafficDirection::Outgoing : TrafficDirection::Incoming;
    const Scan scan = Scanner(bytes).scan();
    row.kind = scan.kind;
    if (scan.idIsNumber) {
        if (const std::optional<qint64> id = parseInteger(scan.id)) {
            row.rpcId = *id;
            row.flags |= Row::IdIsNumber;
        }
    } else if (scan.idIsString) {
        row.flags |= Row::IdIsString;
    }
    switch (scan.kind) {
    case TrafficMessageKind::Request:
        row.method = m_strings.intern(decodeString(scan.method));
        if (m_openRequests.size() >= MaxOpenRequests)
            m_openRequests.clear();
        m_openRequests.insert(requestKey(row.server, direction, scan), row.method);
        break;
    case TrafficMessageKind::Notification: {
        const QString method = decodeString(scan.method);
        if (direction == WireDirection::Incoming && method == QLatin1String("notifications/message")) {
            // The log entry itself: one row, with its level and logger.
            const QJsonObject params
                = QJsonDocument::fromJson(bytes).object().value(QLatin1String("params")).toObject();
            row.direction = TrafficDirection::Log;
            row.kind = TrafficMessageKind::Log;
            row.level = logLevelFromName(params.value(QLatin1String("level")).toString());
            row.method = m_strings.intern(params.value(QLatin1String("logger")).toString());
            break;
        }
        row.method = m_strings.intern(method);
        break;
    }
    case TrafficMessageKind::Response:
    case TrafficMessageKind::ErrorResponse: {
        // A response travels the other way from its request.
        const WireDirection requestDirection
            = direction == WireDirection::Outgoing ? WireDirection::Incoming : WireDirection::Outgoing;
        row.method = m_openRequests.take(requestKey(row.server, requestDirection, scan));
        break;
    }
    default:
        break;
    }
    append(std::move(row));
}

void TrafficModel::addServerLog(const QString& server, const QString& line)
{
    addText(server, TrafficDirection::Stderr, QString(), line);
}

void TrafficModel::addNotice(const QString& server, const QString& text)
{
    addText(server, TrafficDirection::Notice, QString(), text);
}

void TrafficModel::addText(const QString& server, TrafficDirection direction, const QString& kind, const QString& text)
{
    Row row;
    row.at = now();
    row.payload = text.toUtf8();
    row.size = clampSize(row.payload.size());
    row.server = m_strings.intern(server);
    row.method = m_strings.intern(kind);
    row.direction = direction;
    append(std::move(row));
}

void TrafficModel::addLogMessage(
    const QString& server, const QString& level, const QString& logger, const QJsonValue& data)
{
    Row row;
    row.at = now();
    QJsonObject entry { { QStringLiteral("level"), level }, { QStringLiteral("data"), data } };
    if (!logger.isEmpty())
        entry.insert(QStringLiteral("logger"), logger);
    row.payload = QJsonDocument(entry).toJson(QJsonDocument::Compact);
    row.size = clampSize(row.payload.size());
    row.server = m_strings.intern(server);
    row.method = m_strings.intern(logger);
    row.direction = TrafficDirection::Log;
    row.kind = TrafficMessageKind::Log;
    row.level = logLevelFromName(level);
    append(std::move(row));
}

void TrafficModel::addAction(const QString& server, const QString& kind, const QString& text)
{
    addText(server, TrafficDirection::Action, kind, text);
}

QString TrafficModel::textOf(const Row& row) const
{
    QString text;
    if (row.kind == TrafficMessageKind::Log) {
        // The wire message (params.data) or a decoded entry (data).
        QJsonObject entry = QJsonDocument::fromJson(row.payload).object();
        if (entry.contains(QLatin1String("params")))
            entry = entry.value(QLatin1String("params")).toObject();
        const QJsonValue data = entry.value(QLatin1String("data"));
        if (data.isString()) {
            text = data.toString();
        } else {
            // Any JSON value in compact form: the array around it is cut off again.
            const QByteArray json = QJsonDocument(QJsonArray { data }).toJson(QJsonDocument::Compact);
            text = QString::fromUtf8(QByteArrayView(json).sliced(1, json.size() - 2));
        }
    } else {
        // A few characters more than shown, so a multi-byte character is never cut.
        text = QString::fromUtf8(
            QByteArrayView(row.payload).first(std::min<qsizetype>(row.payload.size(), TextChars * 4)));
    }
    text = text.left(TextChars);
    for (QChar& c : text) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t'))
            c = QLatin1Char(' ');
    }
    return text;
}

qint64 TrafficModel::costOf(const Row& row)
{
    return qint64(sizeof(Row)) + row.payload.size();
}

void TrafficModel::append(Row row)
{
    m_bytes += costOf(row);
    m_rows.push_back(std::move(row));
    if (int(m_rows.size()) - m_shown >= m_flushThreshold)
        flush();
    else if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void TrafficModel::flush()
{
    m_flushTimer.stop();
    const auto total = qint64(m_rows.size());
    qint64 drop = 0;
    qint64 bytes = m_bytes;
    while (total - drop > m_rowLimit || (bytes > m_byteLimit && total - drop > 1)) {
        bytes -= costOf(m_rows[size_t(drop)]);
        ++drop;
    }
    const int shownDrop = int(std::min<qint64>(drop, m_shown));
    if (shownDrop > 0) {
        beginRemoveRows({}, 0, shownDrop - 1);
        m_rows.erase(m_rows.begin(), m_rows.begin() + shownDrop);
        m_shown -= shownDrop;
        endRemoveRows();
    }
    // Rows of the batch that would go at once are never inserted, but they are counted.
    m_rows.erase(m_rows.begin(), m_rows.begin() + (drop - shownDrop));
    m_bytes = bytes;
    m_dropped += drop;
    if (int(m_rows.size()) > m_shown) {
        beginInsertRows({}, m_shown, int(m_rows.size()) - 1);
        m_shown = int(m_rows.size());
        endInsertRows();
    }
    if (drop > 0)
        Q_EMIT rowsDropped(drop, m_dropped);
}

void TrafficModel::clear()
{
    beginResetModel();
    m_flushTimer.stop();
    m_rows.clear();
    m_shown = 0;
    m_bytes = 0;
    m_dropped = 0;
    m_openRequests.clear();
    m_strings.clear();
    endResetModel();
}

QVariant TrafficModel::rpcId(int row) const
{
    const Row& r = m_rows[size_t(row)];
    if (r.flags & Row::IdIsNumber)
        return r.rpcId;
    if (r.flags & Row::IdIsString)
        return decodeString(Scanner(r.payload).scan().id);
    return {};
}

int TrafficModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_shown;
}

int TrafficModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : TrafficModelColumn::Count;
}

QVariant TrafficModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case TrafficModelColumn::Time:
            return row.at;
        case TrafficModelColumn::Server:
            return m_strings.at(row.server);
        case TrafficModelColumn::Direction:
            return int(row.direction);
        case TrafficModelColumn::Method:
            return m_strings.at(row.method);
        case TrafficModelColumn::Size:
            return qint64(row.size);
        case TrafficModelColumn::Text:
            return textOf(row);
        default:
            return {};
        }
    case TrafficModelRole::TimestampRole:
        return row.at;
    case TrafficModelRole::ServerRole:
        return m_strings.at(row.server);
    case TrafficModelRole::DirectionRole:
        return int(row.direction);
    case TrafficModelRole::KindRole:
        return int(row.kind);
    case TrafficModelRole::MethodRole:
        return m_strings.at(row.method);
    case TrafficModelRole::RpcIdRole:
        return rpcId(index.row());
    case TrafficModelRole::SizeRole:
        return qint64(row.size);
    case TrafficModelRole::PayloadRole:
        return row.payload;
    case TrafficModelRole::LogLevelRole:
        return int(row.level);
    case TrafficModelRole::TextRole:
        return textOf(row);
    default:
        return {};
    }
}

} // namespace mcpscope
