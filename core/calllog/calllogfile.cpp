#include "calllogfile.h"

#include "config/regularfile.h"
#include "jsonrpc/translation.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

namespace mcpscope {

namespace {
constexpr int MaxProblems = 100;

/// Why line is not a call record, or an empty string when it is one (then object holds it).
QString lineProblem(const QByteArray& line, QJsonObject* object)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return McpScope::tr("not JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset);
    if (!document.isObject())
        return McpScope::tr("not a call record (not a JSON object)");
    *object = document.object();
    const QJsonValue callId = object->value(QLatin1String("callId"));
    if (!callId.isString() || callId.toString().isEmpty())
        return McpScope::tr("not a call record (no callId)");
    const QJsonValue schema = object->value(QLatin1String("schema"));
    if (!schema.isDouble() || schema.toInteger(-1) < 1)
        return McpScope::tr("not a call record (no schema version)");
    return {};
}

QString csvField(const QString& value)
{
    if (!value.contains(QLatin1Char(',')) && !value.contains(QLatin1Char('"')) && !value.contains(QLatin1Char('\n'))
        && !value.contains(QLatin1Char('\r')))
        return value;
    QString quoted = value;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

bool commit(QSaveFile& file, const QString& path, QString* error)
{
    if (!file.commit()) {
        if (error)
            *error = McpScope::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool open(QSaveFile& file, const QString& path, QString* error)
{
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = McpScope::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}
} // namespace

QString callLabel(const CallRecord& record)
{
    const bool isToolCall = record.method == QLatin1String("tools/call");
    return isToolCall && !record.tool.isEmpty() ? record.tool : record.method;
}

bool CallLogFilter::matches(const CallRecord& record) const
{
    if (!servers.isEmpty() && !servers.contains(record.server))
        return false;
    const QString label = callLabel(record);
    if (!tools.isEmpty() && !tools.contains(label))
        return false;
    if (!outcomes.isEmpty() && !outcomes.contains(record.outcome))
        return false;
    if (text.isEmpty())
        return true;
    const auto has = [this](const QString& candidate) { return candidate.contains(text, Qt::CaseInsensitive); };
    return has(record.callId) || has(record.server) || has(label) || has(record.rule)
        || has(outcomeName(record.outcome));
}

CallLogReadResult CallLogReader::read(const QString& path)
{
    CallLogReadResult result;
    const QString name = QFileInfo(path).fileName();
    QFile file;
    QString reason;
    if (!RegularFile::open(path, &file, &reason)) {
        result.error = McpScope::tr("cannot read %1: %2").arg(path, reason);
        return result;
    }
    const QByteArray bytes = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        result.error = McpScope::tr("cannot read %1: %2").arg(path, file.errorString());
        return result;
    }
    return parse(bytes, name);
}

CallLogReadResult CallLogReader::parse(const QByteArray& bytes, const QString& name)
{
    CallLogReadResult result;
    const QList<QByteArray> lines = bytes.split('\n');
    const bool endsWithNewline = bytes.endsWith('\n');
    int contentLines = 0;
    int recordLines = 0; // lines that are call records, including ones too new to read
    int problemCount = 0;
    QString firstProblem;
    const auto problem = [&](int lineNumber, const QString& text) {
        if (firstProblem.isEmpty())
            firstProblem = McpScope::tr("line %1: %2").arg(lineNumber).arg(text);
        if (++problemCount <= MaxProblems)
            result.problems.append(QStringLiteral("%1:%2: %3").arg(name).arg(lineNumber).arg(text));
    };
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray line = lines.at(i);
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        ++contentLines;
        const int lineNumber = int(i + 1);
        const bool last = i == lines.size() - 1 && !endsWithNewline;
        QJsonObject object;
        const QString why = lineProblem(line, &object);
        if (!why.isEmpty()) {
            problem(lineNumber,
                last && why.startsWith(McpScope::tr("not JSON")) ? McpScope::tr("truncated last line (%1)").arg(why)
                                                                 : why);
            continue;
        }
        ++recordLines;
        const qint64 schema = object.value(QLatin1String("schema")).toInteger();
        if (schema > CallRecord::SchemaVersion) {
            problem(lineNumber,
                McpScope::tr("call record schema %1 is newer than this McpScope reads (%2); skipped")
                    .arg(schema)
                    .arg(CallRecord::SchemaVersion));
            continue;
        }
        result.records.append(CallRecord::fromJson(object));
    }
    if (problemCount > MaxProblems)
        result.problems.append(
            McpScope::tr("%1: %2 more problem(s) not shown").arg(name).arg(problemCount - MaxProblems));
    if (contentLines > 0 && recordLines == 0) {
        result.error = McpScope::tr("%1 is not a McpScope call log: %2").arg(name, firstProblem);
        return result;
    }
    result.ok = true;
    return result;
}

int CallLogWriter::countMatching(const QList<CallRecord>& records, const CallLogFilter& filter)
{
    int count = 0;
    for (const CallRecord& record : records)
        count += filter.matches(record) ? 1 : 0;
    return count;
}

JsonlCallWriter::JsonlCallWriter(QIODevice* out, Redactor redactor)
    : m_out(out)
    , m_redactor(std::move(redactor))
{ }

bool JsonlCallWriter::add(const CallRecord& record)
{
    QByteArray line = m_redactor.redactedRecordJson(record);
    line.append('\n');
    return m_out->write(line) == line.size();
}

bool JsonlCallWriter::addRedactedJson(QByteArrayView json)
{
    return m_out->write(json.data(), json.size()) == json.size() && m_out->write("\n", 1) == 1;
}

QString JsonlCallWriter::errorString() const
{
    return m_out->errorString();
}

CsvCallWriter::CsvCallWriter(QIODevice* out, Redactor redactor)
    : m_out(out)
    , m_redactor(std::move(redactor))
{ }

bool CsvCallWriter::begin()
{
    const QByteArray header("time,server,tool,duration_ms,attempts,rule,outcome,call_id\r\n");
    return m_out->write(header) == header.size();
}

bool CsvCallWriter::add(const CallSummary& call)
{
    const QString time = call.startedAt > 0
        ? QDateTime::fromMSecsSinceEpoch(call.startedAt, Qt::UTC).toString(Qt::ISODateWithMs)
        : QString();
    const bool finished = call.outcome != CallOutcome::Pending;
    const QStringList fields { time, call.server, call.label(),
        finished ? QString::number(call.durationMs()) : QString(), QString::number(call.attempts), call.rule,
        outcomeName(call.outcome), call.callId };
    QStringList quoted;
    quoted.reserve(fields.size());
    for (const QString& field : fields)
        quoted.append(csvField(m_redactor.redactText(field)));
    const QByteArray line = quoted.join(QLatin1Char(',')).toUtf8() + "\r\n";
    return m_out->write(line) == line.size();
}

QString CsvCallWriter::errorString() const
{
    return m_out->errorString();
}

bool CallLogWriter::writeJsonl(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
    QString* error, const std::optional<Redactor>& redactor)
{
    QSaveFile file(path);
    if (!open(file, path, error))
        return false;
    JsonlCallWriter writer(&file, redactor.value_or(Redactor()));
    for (const CallRecord& record : records) {
        if (filter.matches(record))
            writer.add(record);
    }
    return commit(file, path, error);
}

bool CallLogWriter::writeCsv(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
    QString* error, const std::optional<Redactor>& redactor)
{
    QSaveFile file(path);
    if (!open(file, path, error))
        return false;
    CsvCallWriter writer(&file, redactor.value_or(Redactor()));
    writer.begin();
    for (const CallRecord& record : records) {
        if (filter.matches(record))
            writer.add(CallSummary::of(record));
    }
    return commit(file, path, error);
}

} // namespace mcpscope
