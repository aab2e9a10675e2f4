#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

// Command lines as the server dialog, the CLI's --stdio and a workspace's "launchCommand" write them:
// split like a POSIX shell, without expansions. QProcess::splitCommand() honours only double quotes;
// users who paste from a terminal write single quotes too.
namespace mcpscope::CommandLine {

// Splits at unquoted whitespace. 'single quotes' keep everything up to the next ' literally;
// "double quotes" keep everything, except that a backslash before " \ $ or ` escapes it; outside
// quotes a backslash escapes the next character. Quoted parts join the word around them
// (a"b c"d is one word), and '' or "" is an empty word. An unclosed quote runs to the end.
QStringList split(QStringView command);

// The inverse of split(): words without spaces or shell quoting characters stay as they are, the
// others are single-quoted (a ' inside becomes '\''), an empty word becomes ''.
QString join(const QStringList& words);

} // namespace mcpscope::CommandLine
