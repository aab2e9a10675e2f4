#pragma once

#include "calllog/callrecord.h"

#include <QTextBrowser>

namespace mcpscope {

/// One call's story in time order: each attempt (session, failure kind, dispatch verdict), each
/// decision (rule and reason in words), each reconnect (old → new session, how long), fault markers
/// and manual actions, then the result; below it the raw JSON-RPC messages of the call.
class TimelineView : public QTextBrowser
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setRecord(const CallRecord& record, const QList<QByteArray>& rawMessages = {});
    void clearRecord();
    /// The timeline as plain text (for tests and copying).
    QString plainTimeline() const { return toPlainText(); }

    static QString toHtml(const CallRecord& record, const QList<QByteArray>& rawMessages);
};

} // namespace mcpscope
