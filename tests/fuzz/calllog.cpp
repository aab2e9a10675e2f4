#include "calllog/calllogfile.h"
#include "fuzzinput.h"

#include <QJsonDocument>

// The JSONL call-log reader (what `mcpscope-cli export` and the app's import read). Properties: every
// record read writes back the way the log store writes it (toCompactJson() is the compact form of
// toJson()), and reading that line again gives the same record.
using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const CallLogReadResult result = CallLogReader::parse(bytes, QStringLiteral("fuzz.jsonl"));
    fuzz::check(result.ok || !result.error.isEmpty(), "a failed read says why");
    for (const CallRecord& record : result.records) {
        const QByteArray compact = record.toCompactJson();
        fuzz::check(compact == QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact),
            "toCompactJson() is the compact form of toJson()");
        const CallLogReadResult again = CallLogReader::parse(compact + '\n', QStringLiteral("again.jsonl"));
        fuzz::check(again.ok && again.records.size() == 1, "a written record reads back");
        fuzz::check(again.records.first().toCompactJson() == compact, "a record survives writing and reading");
    }
    return 0;
}
