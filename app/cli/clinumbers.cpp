#include "clinumbers.h"

#include "jsonrpc/translation.h"

#include <QLocale>

#include <cmath>

namespace mcpscope {

std::optional<double> CliNumbers::parse(const QString& text, double min, double max, bool integral)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < min || value > max)
        return std::nullopt;
    if (integral && std::floor(value) != value)
        return std::nullopt;
    return value;
}

QString CliNumbers::rangeError(const QString& option, const QString& what, double min, double max, const QString& text)
{
    const auto number = [](double value) { return QString::number(value, 'g', QLocale::FloatingPointShortest); };
    return McpScope::tr("%1 needs %2 from %3 to %4, not '%5'").arg(option, what, number(min), number(max), text);
}

} // namespace mcpscope
