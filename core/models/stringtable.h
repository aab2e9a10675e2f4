#pragma once

#include <QHash>
#include <QList>
#include <QString>

namespace mcpscope {

/// Strings that repeat across many model rows (server, tool and method names, rules), stored once
/// and referred to by index, so a row stays a few dozen bytes. Append-only: an index stays valid
/// until clear(). Index 0 is always the empty string.
class StringTable
{
public:
    StringTable() { clear(); }

    quint32 intern(const QString& text)
    {
        if (text.isEmpty())
            return 0;
        const auto it = m_index.constFind(text);
        if (it != m_index.constEnd())
            return *it;
        const auto index = quint32(m_strings.size());
        m_strings.append(text);
        m_index.insert(text, index);
        return index;
    }

    /// The string at index; an out-of-range index reads as the empty string.
    const QString& at(quint32 index) const
    {
        return index < quint32(m_strings.size()) ? m_strings.at(qsizetype(index)) : m_strings.first();
    }

    int size() const { return int(m_strings.size()); }

    void clear()
    {
        m_strings = { QString() };
        m_index.clear();
    }

private:
    QList<QString> m_strings;
    QHash<QString, quint32> m_index;
};

} // namespace mcpscope
