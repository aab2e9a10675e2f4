#pragma once

#include <QCoreApplication>

namespace mcpscope {

/// The one translation context for texts written outside a QObject: free functions, value types and
/// namespaces such as the codec, the wire parsers, the classifier, the decision table and the
/// exporters. Code inside a QObject uses its own class's tr().
///
///     return McpScope::tr("Server '%1' sent a line that is not JSON.").arg(name);
class McpScope
{
    Q_DECLARE_TR_FUNCTIONS(McpScope)
};

} // namespace mcpscope
