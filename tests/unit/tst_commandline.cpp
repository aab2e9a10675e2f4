#include "config/commandline.h"

#include <QTest>

using namespace mcpscope;

namespace {
QStringList wordList(std::initializer_list<const char*> list)
{
    QStringList out;
    for (const char* word : list)
        out.append(QString::fromUtf8(word));
    return out;
}
} // namespace

// CommandLine::split() is what the server dialog's Arguments and Launch command fields, a workspace's
// "launchCommand" and the CLI's --stdio promise: a POSIX shell's word splitting, quotes of both kinds.
class TestCommandLine : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void split_data();
    void split();
    void joinSplitsBack_data();
    void joinSplitsBack();
    void joinKeepsPlainWords();
};

void TestCommandLine::split_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("words");

    QTest::newRow("empty") << QString() << QStringList();
    QTest::newRow("blanks only") << QString::fromUtf8(" \t ") << QStringList();
    QTest::newRow("plain words") << QString::fromUtf8("npx -y  @modelcontextprotocol/server-everything")
                                 << wordList({ "npx", "-y", "@modelcontextprotocol/server-everything" });
    QTest::newRow("single quotes keep spaces") << QString::fromUtf8("node '/home/me/My Servers/index.js' stdio")
                                               << wordList({ "node", "/home/me/My Servers/index.js", "stdio" });
    QTest::newRow("single quotes keep double quotes and backslashes")
        << QString::fromUtf8("echo 'say \"hi\" \\n'") << wordList({ "echo", "say \"hi\" \\n" });
    QTest::newRow("double quotes keep spaces and single quotes")
        << QString::fromUtf8("echo \"it's here\"") << wordList({ "echo", "it's here" });
    QTest::newRow("backslash escapes inside double quotes")
        << QString::fromUtf8("echo \"a \\\"b\\\" \\\\ \\$HOME \\x\"") << wordList({ "echo", "a \"b\" \\ $HOME \\x" });
    QTest::newRow("backslash escapes a space") << QString::fromUtf8("ls My\\ Dir") << wordList({ "ls", "My Dir" });
    QTest::newRow("quotes join the word around them")
        << QString::fromUtf8("--name='a b'\"c d\"e") << wordList({ "--name=a bc de" });
    QTest::newRow("empty quotes are an empty word")
        << QString::fromUtf8("cmd '' \"\" x") << wordList({ "cmd", "", "", "x" });
    QTest::newRow("env assignment with quotes")
        << QString::fromUtf8("env 'GREETING=hello world' PORT=3901 node server.js")
        << wordList({ "env", "GREETING=hello world", "PORT=3901", "node", "server.js" });
    QTest::newRow("unclosed single quote runs to the end")
        << QString::fromUtf8("echo 'a b") << wordList({ "echo", "a b" });
    QTest::newRow("unclosed double quote runs to the end")
        << QString::fromUtf8("echo \"a b") << wordList({ "echo", "a b" });
    QTest::newRow("trailing backslash stays") << QString::fromUtf8("echo a\\") << wordList({ "echo", "a\\" });
    QTest::newRow("tabs and newlines separate") << QString::fromUtf8("a\tb\nc") << wordList({ "a", "b", "c" });
}

void TestCommandLine::split()
{
    QFETCH(QString, command);
    QFETCH(QStringList, words);
    QCOMPARE(CommandLine::split(command), words);
}

void TestCommandLine::joinSplitsBack_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::newRow("plain") << wordList({ "node", "index.js", "stdio" });
    QTest::newRow("spaces") << wordList({ "node", "/home/me/My Servers/index.js" });
    QTest::newRow("single quote") << wordList({ "echo", "it's", "'quoted'" });
    QTest::newRow("double quote and backslash") << wordList({ "echo", "say \"hi\" \\ $HOME `x`" });
    QTest::newRow("empty word") << wordList({ "cmd", "", "x" });
}

void TestCommandLine::joinSplitsBack()
{
    QFETCH(QStringList, words);
    QCOMPARE(CommandLine::split(CommandLine::join(words)), words);
}

void TestCommandLine::joinKeepsPlainWords()
{
    QCOMPARE(CommandLine::join(wordList({ "npx", "-y", "@modelcontextprotocol/server-everything" })),
        QString::fromUtf8("npx -y @modelcontextprotocol/server-everything"));
    QCOMPARE(CommandLine::join(wordList({ "node", "a b" })), QString::fromUtf8("node 'a b'"));
    QCOMPARE(CommandLine::join(wordList({ "it's" })), QString::fromUtf8("'it'\\''s'"));
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
