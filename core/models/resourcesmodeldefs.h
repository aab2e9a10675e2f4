#pragma once

#include <Qt>

namespace mcpscope {

/// What a row of ResourcesModel is.
enum class ResourceKind {
    Resource, ///< from resources/list: a concrete URI
    Template, ///< from resources/templates/list: an RFC 6570 uriTemplate
};

/// Columns of ResourcesModel. Qt::DisplayRole carries the raw value named here.
namespace ResourcesModelColumn {
enum Column {
    Name, ///< QString: name as listed
    Uri, ///< QString: uri, or uriTemplate for a template
    MimeType, ///< QString, empty when not declared
    Updates, ///< int: notifications/resources/updated received for this URI in this session
    Count
};
} // namespace ResourcesModelColumn

/// Roles of ResourcesModel, every column.
namespace ResourcesModelRole {
enum Role {
    KindRole = Qt::UserRole + 1, ///< int: a ResourceKind
    UriRole, ///< QString: uri or uriTemplate
    RawRole, ///< QJsonObject: the entry as the server listed it
    SubscribedRole, ///< bool: resources/subscribe succeeded and no unsubscribe followed
    UpdatesRole, ///< int: the Updates column's value
    DescriptionRole, ///< QString
};
} // namespace ResourcesModelRole

} // namespace mcpscope
