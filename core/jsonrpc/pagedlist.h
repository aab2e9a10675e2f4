#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace mcpscope {

/// The pages of a paginated list method (tools/list, resources/list, …): each result carries its items
/// under one key and, while more follow, a nextCursor. Shared by the session's own listing and
/// Engine::list, so both stop at the same bound and merge the pages the same way.
struct PagedList
{
    /// A server that keeps returning cursors must not loop the client forever.
    static constexpr qsizetype MaxItems = 10'000'000;

    /// Appends the page's items to items. Returns the cursor of the next page to ask for, or a null
    /// string when the list is complete (no cursor, an empty one, or MaxItems reached).
    static QString appendPage(const QJsonObject& result, const QString& key, QJsonArray& items);

    /// The last page's result with the items of every page under key and no nextCursor.
    static QJsonObject merged(QJsonObject lastResult, const QString& key, const QJsonArray& items);
};

} // namespace mcpscope
