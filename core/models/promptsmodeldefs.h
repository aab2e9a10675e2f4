#pragma once

#include <Qt>

namespace mcpscope {

/// Roles of PromptsModel (one column; Qt::DisplayRole is the prompt's name).
namespace PromptsModelRole {
enum Role {
    NameRole = Qt::UserRole + 1, ///< QString
    TitleRole, ///< QString: title, empty when the server sent none
    DescriptionRole, ///< QString
    ArgumentsRole, ///< QJsonArray: the arguments as prompts/list sent them ({name, description?, required?})
    RequiredCountRole, ///< int: how many arguments have required: true
    PromptRole, ///< QJsonObject: the prompt as listed
};
} // namespace PromptsModelRole

} // namespace mcpscope
