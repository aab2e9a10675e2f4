#include "pagedlist.h"

namespace mcpscope {

QString PagedList::appendPage(const QJsonObject& result, const QString& key, QJsonArray& items)
{
    for (const QJsonValue& item : result.value(key).toArray())
        items.append(item);
    const QJsonValue next = result.value(QLatin1String("nextCursor"));
    if (!next.isString() || next.toString().isEmpty() || items.size() >= MaxItems)
        return QString();
    return next.toString();
}

QJsonObject PagedList::merged(QJsonObject lastResult, const QString& key, const QJsonArray& items)
{
    lastResult.insert(key, items);
    lastResult.remove(QStringLiteral("nextCursor"));
    return lastResult;
}

} // namespace mcpscope
