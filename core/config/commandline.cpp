#include "commandline.h"

namespace mcpscope::CommandLine {

namespace {

bool isSpace(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r');
}

// Characters that make a word need quotes to split back into itself.
bool needsQuoting(const QString& word)
{
    if (word.isEmpty())
        return true;
    for (const QChar c : word) {
        if (isSpace(c) || QStringView(u"'\"\\$`").contains(c))
            return true;
    }
    return false;
}

} // namespace

QStringList split(QStringView command)
{
    QStringList words;
    QString word;
    bool inWord = false; // a word has started, even if it is still empty ('' or "")
    qsizetype i = 0;
    const qsizetype size = command.size();
    while (i < size) {
        const QChar c = command.at(i);
        if (isSpace(c)) {
            if (inWord) {
                words.append(word);
                word.clear();
                inWord = false;
            }
            ++i;
        } else if (c == QLatin1Char('\'')) {
            inWord = true;
            const qsizetype close = command.indexOf(QLatin1Char('\''), i + 1);
            const qsizetype end = close < 0 ? size : close;
            word += command.mid(i + 1, end - i - 1);
            i = end + 1;
        } else if (c == QLatin1Char('"')) {
            inWord = true;
            for (++i; i < size && command.at(i) != QLatin1Char('"'); ++i) {
                if (command.at(i) == QLatin1Char('\\') && i + 1 < size
                    && QStringView(u"\"\\$`").contains(command.at(i + 1)))
                    ++i;
                word += command.at(i);
            }
            ++i; // the closing quote
        } else if (c == QLatin1Char('\\') && i + 1 < size) {
            inWord = true;
            word += command.at(i + 1);
            i += 2;
        } else {
            inWord = true;
            word += c;
            ++i;
        }
    }
    if (inWord)
        words.append(word);
    return words;
}

QString join(const QStringList& words)
{
    QStringList quoted;
    quoted.reserve(words.size());
    for (const QString& word : words) {
        if (!needsQuoting(word)) {
            quoted.append(word);
            continue;
        }
        QString escaped = word;
        escaped.replace(QLatin1Char('\''), QLatin1String("'\\''"));
        quoted.append(QLatin1Char('\'') + escaped + QLatin1Char('\''));
    }
    return quoted.join(QLatin1Char(' '));
}

} // namespace mcpscope::CommandLine
