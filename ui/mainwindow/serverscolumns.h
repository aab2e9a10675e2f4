#pragma once

class QTreeView;

namespace mcpscope {

/// The Servers view's columns, so a dock beside the tabs shows every server's state, breaker and call
/// counters without scrolling sideways: the Server column draws two lines, the name and below it, smaller,
/// the transport and the counters ("HTTP · 12 calls · 2 failed · 1 retried · 1 uncertain", zero counts
/// left out); State and Breaker keep their coloured columns. The transport, counter, session id and
/// protocol columns start hidden (the Overview tab shows the session and protocol). The header's context
/// menu shows or hides any column, and the choice is kept in the settings.
/// Call after view->setModel() (a ServerListModel, or a proxy with its columns).
void setUpServerColumns(QTreeView* view);

} // namespace mcpscope
