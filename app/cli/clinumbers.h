#pragma once

#include <QString>

#include <optional>

namespace mcpscope {

/// The one parser for numbers given on mcpscope-cli's command line. QString::toDouble() takes "nan",
/// "inf" and "1e300", and a cast to an integer type turns those (and "1e-9" seconds) into 0 or
/// undefined behaviour, which is how a bad --timeout used to become no timeout at all.
namespace CliNumbers {

/// text as a finite number within [min, max] (and a whole number when integral), or nullopt.
std::optional<double> parse(const QString& text, double min, double max, bool integral = false);

/// The usage error for an option whose value parse() refused: names the option, the range and the value.
QString rangeError(const QString& option, const QString& what, double min, double max, const QString& text);

} // namespace CliNumbers

} // namespace mcpscope
