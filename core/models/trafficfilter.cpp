#include "trafficfilter.h"

#include "trafficmodeldefs.h"

#include <QString>

namespace mcpscope {

void TrafficFilter::setMinimumLevel(int level)
{
    if (m_minimum == level)
        return;
    m_minimum = level;
    invalidateFilter();
}

void TrafficFilter::setServer(const QString& server)
{
    if (m_server == server)
        return;
    m_server = server;
    invalidateFilter();
}

void TrafficFilter::setText(const QString& text)
{
    if (m_text == text)
        return;
    m_text = text;
    m_textUtf8 = text.toUtf8();
    m_textAscii = m_textUtf8.size() == text.size();
    invalidateFilter();
}

bool TrafficFilter::filterAcceptsRow(int row, const QModelIndex& parent) const
{
    const QModelIndex index = sourceModel()->index(row, 0, parent);
    const int level = index.data(TrafficModelRole::LogLevelRole).toInt();
    if (level >= 0 && level < m_minimum)
        return false;
    const QString server = index.data(TrafficModelRole::ServerRole).toString();
    if (!m_server.isEmpty() && server != m_server)
        return false;
    if (m_text.isEmpty())
        return true;
    if (server.contains(m_text, Qt::CaseInsensitive)
        || index.data(TrafficModelRole::MethodRole).toString().contains(m_text, Qt::CaseInsensitive))
        return true;
    const QByteArray payload = index.data(TrafficModelRole::PayloadRole).toByteArray();
    if (m_textAscii)
        return QLatin1String(payload).contains(QLatin1String(m_textUtf8), Qt::CaseInsensitive);
    return payload.contains(m_textUtf8);
}

} // namespace mcpscope
