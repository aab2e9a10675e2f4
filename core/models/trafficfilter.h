#pragma once

#include <QSortFilterProxyModel>

namespace mcpscope {

/// What the Traffic dock shows of a TrafficModel: log rows from a minimum level up (other rows have no
/// level and always pass the level test), one server's rows or every server's, and rows containing a
/// text. The text is looked for, without case, in the server's name, the method and the whole message;
/// an ASCII text is compared without case over the raw bytes, so a megabyte result is never decoded.
class TrafficFilter : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    /// A TrafficLogLevel (Debug is 0, every level).
    void setMinimumLevel(int level);
    int minimumLevel() const { return m_minimum; }
    /// Empty: every server.
    void setServer(const QString& server);
    const QString& server() const { return m_server; }
    void setText(const QString& text);
    const QString& text() const { return m_text; }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    int m_minimum = 0;
    QString m_server;
    QString m_text;
    QByteArray m_textUtf8;
    bool m_textAscii = true;
};

} // namespace mcpscope
