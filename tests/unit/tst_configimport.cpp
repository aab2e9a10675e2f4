#include "config/mcpjsonimport.h"
#include "config/workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace mcpscope;
using Dialect = McpJsonImport::Dialect;

namespace mcpscope {
char* toString(const ServerConfig& config)
{
    const QByteArray json = QJsonDocument(config.toJson()).toJson(QJsonDocument::Compact);
    const QByteArray text = config.name.toUtf8() + ' ' + json;
    return qstrdup(text.constData());
}
} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::ServerConfig)
Q_DECLARE_METATYPE(mcpscope::McpJsonImport::Dialect)

namespace {

const QString kToken = QStringLiteral("tok-123");
const QString kHome = QStringLiteral("/home/tester");
const QString kPort = QStringLiteral("4555");

QString dataDir()
{
    return QFileInfo(QStringLiteral(MCPSCOPE_SOURCE_DIR "/tests/unit/data/config")).absoluteFilePath();
}

QString dataFile(const QString& name)
{
    return dataDir() + QLatin1Char('/') + name;
}

ServerConfig stdio(const char* name, const QString& command, const QStringList& args = {})
{
    ServerConfig config;
    config.name = QString::fromUtf8(name);
    config.command = command;
    config.args = args;
    return config;
}

ServerConfig http(const char* name, TransportKind transport, const char* url)
{
    ServerConfig config;
    config.name = QString::fromUtf8(name);
    config.transport = transport;
    config.url = QUrl(QString::fromUtf8(url));
    return config;
}

void compareServers(const QList<ServerConfig>& actual, const QList<ServerConfig>& expected)
{
    QStringList actualNames;
    for (const ServerConfig& server : actual)
        actualNames.append(server.name);
    QStringList expectedNames;
    for (const ServerConfig& server : expected)
        expectedNames.append(server.name);
    QCOMPARE(actualNames, expectedNames);
    for (qsizetype i = 0; i < actual.size(); ++i)
        QCOMPARE(actual.at(i), expected.at(i));
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
}

} // namespace

class TestConfigImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dialects_data();
    void dialects();
    void brokenFiles_data();
    void brokenFiles();
    void unreadablePaths_data();
    void unreadablePaths();
    void expandVariables_data();
    void expandVariables();
    void vscodeFolderIsParentOfDotVscode();
    void launchCommandKeepsSpacedPathsTogether();
    void stripJsonc_data();
    void stripJsonc();
    void saveLoadRoundTrip();
    void saveFailures();
    void demoWorkspace();
    void saveKeepsPlaceholders();
    void saveElsewhereWritesExpandedValues();
    void neverCrashesOnDamagedInput();

private:
    QTemporaryDir m_special; ///< a FIFO and a socket, for unreadablePaths
};

void TestConfigImport::initTestCase()
{
    qputenv("MCPSCOPE_TEST_TOKEN", kToken.toUtf8());
    qputenv("MCPSCOPE_TEST_HOME", kHome.toUtf8());
    qputenv("MCPSCOPE_TEST_PORT", kPort.toUtf8());
    qunsetenv("MCPSCOPE_TEST_UNSET");
    QVERIFY2(QFileInfo::exists(dataFile(QStringLiteral("claude-desktop.json"))), qPrintable(dataDir()));
    QVERIFY(m_special.isValid());
    QVERIFY2(::mkfifo(QFile::encodeName(m_special.filePath(QStringLiteral("fifo.json"))).constData(), 0600) == 0,
        std::strerror(errno));
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    const QByteArray socketPath = QFile::encodeName(m_special.filePath(QStringLiteral("socket.json")));
    QVERIFY(size_t(socketPath.size()) < sizeof address.sun_path);
    std::memcpy(address.sun_path, socketPath.constData(), size_t(socketPath.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(fd >= 0);
    const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(fd); // the socket file stays after the descriptor is gone
    QVERIFY2(bound, std::strerror(errno));
}

void TestConfigImport::dialects_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<Dialect>("dialect");
    QTest::addColumn<QList<ServerConfig>>("expected");
    const QString dir = dataDir();

    {
        ServerConfig filesystem = stdio("filesystem", QStringLiteral("npx"),
            { QStringLiteral("-y"), QStringLiteral("@modelcontextprotocol/server-filesystem"),
                dir + QLatin1String("/docs") });
        ServerConfig weather = stdio("weather", QStringLiteral("uv"),
            { QStringLiteral("--directory"), QStringLiteral("/opt/weather"), QStringLiteral("run"),
                QStringLiteral("weather.py") });
        weather.env.insert(QStringLiteral("WEATHER_API_KEY"), QStringLiteral("abc123"));
        weather.env.insert(QStringLiteral("HOME_DIR"), kHome);
        weather.cwd = dir;
        QTest::newRow("Claude Desktop stdio servers with env and cwd") << QStringLiteral(
            "claude-desktop.json") << Dialect::ClaudeDesktop << QList<ServerConfig> { filesystem, weather };
    }
    {
        ServerConfig remote = http("remote", TransportKind::AutoHttp, "https://mcp.example.com/mcp");
        remote.headers = { { QStringLiteral("Authorization"), QLatin1String("Bearer ") + kToken },
            { QStringLiteral("X-Team"), QStringLiteral("inspector") } };
        QTest::newRow("Cursor url entries with headers and types")
            << QStringLiteral("cursor-mcp.json") << Dialect::ClaudeDesktop
            << QList<ServerConfig> {
                   http("legacy", TransportKind::LegacySse, "http://localhost:8080/sse"),
                   stdio("local", QStringLiteral("node"),
                       { dir + QLatin1String("/server.js"), QStringLiteral("${input:unused}") }),
                   remote,
                   http("streamable", TransportKind::StreamableHttp, "http://127.0.0.1:3001/mcp"),
               };
    }
    {
        ServerConfig github = http("github", TransportKind::AutoHttp, "https://api.githubcopilot.com/mcp/");
        github.headers = { { QStringLiteral("Authorization"), QStringLiteral("Bearer ${input:api-key}") } };
        ServerConfig memory = stdio("memory", QStringLiteral("npx"),
            { QStringLiteral("-y"), QStringLiteral("@modelcontextprotocol/server-memory") });
        memory.env.insert(QStringLiteral("API_KEY"), QStringLiteral("${input:api-key}"));
        memory.env.insert(QStringLiteral("NOTE"), QStringLiteral("a // not a comment, /* nor this */"));
        QTest::newRow("VS Code mcp.json with comments, trailing commas and type")
            << QStringLiteral("vscode-mcp.json") << Dialect::VsCode
            << QList<ServerConfig> {
                   github,
                   http("legacy", TransportKind::LegacySse, "http://localhost:3001/sse"),
                   stdio("local", dir + QLatin1String("/bin/server")),
                   memory,
               };
    }
    QTest::newRow("VS Code settings.json with mcp.servers")
        << QStringLiteral("vscode-settings.json") << Dialect::VsCode
        << QList<ServerConfig> {
               http("docs", TransportKind::AutoHttp, "http://localhost:7070/mcp"),
               stdio("fetch", QStringLiteral("uvx"), { QStringLiteral("mcp-server-fetch") }),
           };
    {
        ServerConfig counter = stdio("counter", dir + QLatin1String("/bin/counter"),
            { QStringLiteral("--state"), dir + QLatin1String("/state.json") });
        counter.env.insert(QStringLiteral("COUNTER_TOKEN"), kToken);
        counter.secretEnv = QStringList { QStringLiteral("COUNTER_TOKEN") };
        counter.idempotentReplay = true;
        ServerConfig oldSse = http("old-sse", TransportKind::LegacySse, "http://127.0.0.1:4555/sse");
        oldSse.requestTimeoutMs = 5000;
        oldSse.breakerThreshold = 5;
        oldSse.tlsVerify = false;
        QTest::newRow("McpScope workspace with policy and ${env:} in the URL") << QStringLiteral(
            "workspace.json") << Dialect::McpScopeWorkspace << QList<ServerConfig> { counter, oldSse };
    }
    {
        ServerConfig npm = stdio("weather (npm)", QStringLiteral("npx"),
            { QStringLiteral("-y"), QStringLiteral("@example/weather-mcp@1.4.0"), QStringLiteral("Berlin"),
                QStringLiteral("--units"), QStringLiteral("metric"), QStringLiteral("--verbose") });
        npm.env.insert(QStringLiteral("WEATHER_API_KEY"), QString());
        npm.env.insert(QStringLiteral("WEATHER_REGION"), QStringLiteral("eu"));
        npm.secretEnv = QStringList { QStringLiteral("WEATHER_API_KEY") };
        ServerConfig pypi = stdio("weather (pypi)", QStringLiteral("uvx"), { QStringLiteral("weather-mcp==1.4.0") });
        ServerConfig oci = http("weather (oci)", TransportKind::StreamableHttp, "http://localhost:8080/mcp");
        oci.launchCommand
            = QStringLiteral("env PORT=8080 docker run -i --rm -e PORT ghcr.io/example/weather-mcp:1.4.0");
        ServerConfig remote
            = http("weather (remote)", TransportKind::StreamableHttp, "https://weather.example.com/mcp");
        remote.headers = { { QStringLiteral("X-Api-Key"), QString() } };
        remote.secretHeaders = QStringList { QStringLiteral("X-Api-Key") };
        QTest::newRow("registry server.json: packages and remotes, an mcpb bundle skipped")
            << QStringLiteral("registry-server.json") << Dialect::McpRegistry
            << QList<ServerConfig> { npm, pypi, oci, remote,
                   http("weather (remote, sse)", TransportKind::LegacySse, "https://weather.example.com/sse") };
        ServerConfig github = stdio("github", QStringLiteral("npx"),
            { QStringLiteral("-y"), QStringLiteral("@modelcontextprotocol/server-github") });
        github.env.insert(QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN"), QStringLiteral("ghp_example"));
        QTest::newRow("Cline settings: autoApprove, disabled and streamableHttp")
            << QStringLiteral("cline-mcp-settings.json") << Dialect::ClaudeDesktop
            << QList<ServerConfig> { github,
                   http("remote", TransportKind::StreamableHttp, "https://mcp.example.com/mcp") };
        QTest::newRow("registry API answer wrapping a server.json")
            << QStringLiteral("registry-api-response.json") << Dialect::McpRegistry
            << QList<ServerConfig> { http("notes", TransportKind::StreamableHttp, "https://notes.example.com/mcp") };
    }
}

void TestConfigImport::dialects()
{
    QFETCH(QString, file);
    QFETCH(Dialect, dialect);
    QFETCH(QList<ServerConfig>, expected);

    ConfigError error;
    const std::optional<Workspace> workspace = Workspace::load(dataFile(file), &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    QVERIFY(error.isNull());
    QCOMPARE(workspace->dialect, dialect);
    QCOMPARE(workspace->filePath, dataFile(file));
    compareServers(workspace->servers, expected);
    if (QTest::currentTestFailed())
        return;

    // The parser on its own agrees with the file loader.
    QFile input(dataFile(file));
    QVERIFY(input.open(QIODevice::ReadOnly));
    Dialect parsedDialect = Dialect::McpScopeWorkspace;
    const auto parsed = McpJsonImport::parse(input.readAll(), dataFile(file), &error, &parsedDialect);
    QVERIFY2(parsed, qPrintable(error.toString()));
    QCOMPARE(parsedDialect, dialect);
    compareServers(*parsed, expected);
}

void TestConfigImport::brokenFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("where"); // ":line:" or the key path; empty when the whole file is at fault
    QTest::addColumn<QString>("phrase");

    const auto row = [](const char* tag, const char* file, const char* where, const char* phrase) {
        QTest::newRow(tag) << QString::fromUtf8(file) << QString::fromUtf8(where) << QString::fromUtf8(phrase);
    };
    row("truncated JSON names the line", "broken-truncated.json", ".json:6:1: ", "not valid JSON");
    row("syntax error after a multi-line comment keeps its line", "broken-syntax-after-comment.json",
        ".json:6:", "not valid JSON");
    row("unclosed block comment names its line", "broken-unterminated-comment.json",
        ".json:4:1: ", "comment is never closed");
    row("YAML is not JSON", "not-json.yaml", ".yaml:1:", "not valid JSON");
    row("args is a string", "broken-args-type.json", ": mcpServers.weather.args: ", "expected an array of strings");
    row("env value is a number", "broken-env-type.json",
        ": mcpServers.database.env: ", "expected an object of strings (\"PGPORT\" is not a string)");
    row("workspace field of the wrong type", "broken-workspace-field.json",
        ": servers.slow.requestTimeoutMs: ", "expected a whole number");
    row("entry is a string, not an object", "broken-entry-not-object.json",
        ": mcpServers.weather: ", "expected an object");
    row("package.json is not an MCP file", "broken-not-mcp.json", "", "not an MCP configuration file");
    row("top-level array is not an MCP file", "broken-top-level-array.json", "", "not an MCP configuration file");
    row("empty file", "empty.json", "", "the file is empty");
    row("whitespace-only file", "blank.json", "", "the file is empty");
    row("newer workspace version", "broken-newer-version.json",
        ": mcpscopeWorkspace: ", "format version 2, newer than the version 1");
    row("ftp URL", "broken-bad-url.json", ": mcpServers.files.url: ", "expected an http or https URL with a host");
    row("URL without a host", "broken-url-no-host.json",
        ": servers.nohost.url: ", "expected an http or https URL with a host");
    row("both command and url", "broken-both-command-url.json",
        ": mcpServers.confused: ", "has both \"command\" and \"url\"");
    row("neither command nor url", "broken-missing-command.json",
        ": mcpServers.empty: ", "missing \"command\" or \"url\"");
    row("unknown VS Code type", "broken-unknown-type.json",
        ": servers.socket.type: ", "unknown transport type \"websocket\"");
    row("same name in servers and mcp.servers", "broken-duplicate.json",
        ": mcp.servers.fetch: ", "duplicate server name \"fetch\"");
    row("registry server.json with nothing McpScope can run", "broken-registry-nothing-to-run.json",
        ": packages: ", "cannot run any package or remote of this server.json (mcpb)");
}

void TestConfigImport::brokenFiles()
{
    QFETCH(QString, file);
    QFETCH(QString, where);
    QFETCH(QString, phrase);

    ConfigError error;
    const std::optional<Workspace> workspace = Workspace::load(dataFile(file), &error);
    QVERIFY(!workspace);
    QVERIFY(!error.isNull());
    const QString message = error.toString();
    QVERIFY2(message.contains(file), qPrintable(message));
    QVERIFY2(message.contains(where), qPrintable(message));
    QVERIFY2(message.contains(phrase), qPrintable(message));
}

void TestConfigImport::unreadablePaths_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("phrase");
    QTest::newRow("missing file") << dataFile(QStringLiteral("no-such-file.json"))
                                  << QStringLiteral("cannot open the file");
    QTest::newRow("directory") << dataDir() << QStringLiteral("it is a directory");
    // Each of these used to block or stream forever before the app's event loop or the CLI's
    // signal handling ran; they must fail at once, by name (the app shows the message).
    QTest::newRow("FIFO nobody writes to") << m_special.filePath(QStringLiteral("fifo.json"))
                                           << QStringLiteral("it is a FIFO (named pipe), not a regular file");
    QTest::newRow("socket") << m_special.filePath(QStringLiteral("socket.json"))
                            << QStringLiteral("it is a socket, not a regular file");
    QTest::newRow("character device that never ends")
        << QStringLiteral("/dev/zero") << QStringLiteral("it is a character device, not a regular file");
}

void TestConfigImport::unreadablePaths()
{
    QFETCH(QString, path);
    QFETCH(QString, phrase);
    ConfigError error;
    QVERIFY(!Workspace::load(path, &error));
    QVERIFY2(error.toString().startsWith(path + QLatin1String(": ")), qPrintable(error.toString()));
    QVERIFY2(error.message.contains(phrase), qPrintable(error.message));
}

void TestConfigImport::expandVariables_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("workspaceFolder") << QStringLiteral("${workspaceFolder}/bin/server")
                                     << QStringLiteral("/home/dev/project/bin/server");
    QTest::newRow("workspaceFolder twice") << QStringLiteral("${workspaceFolder}:${workspaceFolder}")
                                           << QStringLiteral("/home/dev/project:/home/dev/project");
    QTest::newRow("workspaceFolderBasename")
        << QStringLiteral("name=${workspaceFolderBasename}") << QStringLiteral("name=project");
    QTest::newRow("env variable") << QStringLiteral("Bearer ${env:MCPSCOPE_TEST_TOKEN}")
                                  << QLatin1String("Bearer ") + kToken;
    QTest::newRow("unset env variable is empty")
        << QStringLiteral("[${env:MCPSCOPE_TEST_UNSET}]") << QStringLiteral("[]");
    QTest::newRow("input variable is kept") << QStringLiteral("${input:api-key}") << QStringLiteral("${input:api-key}");
    QTest::newRow("unknown variable is kept") << QStringLiteral("${command:pick}") << QStringLiteral("${command:pick}");
    QTest::newRow("unclosed variable is kept")
        << QStringLiteral("a ${workspaceFolder") << QStringLiteral("a ${workspaceFolder");
    QTest::newRow("dollar without braces is kept") << QStringLiteral("$HOME/x") << QStringLiteral("$HOME/x");
    QTest::newRow("no variables") << QStringLiteral("plain") << QStringLiteral("plain");
}

void TestConfigImport::expandVariables()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QCOMPARE(McpJsonImport::expandVariables(text, QStringLiteral("/home/dev/project")), expected);
}

void TestConfigImport::vscodeFolderIsParentOfDotVscode()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral(".vscode")));
    const QString path = dir.filePath(QStringLiteral(".vscode/mcp.json"));
    QVERIFY(writeFile(path, R"({"servers": {"local": {"type": "stdio", "command": "${workspaceFolder}/run"}}})"));

    ConfigError error;
    const std::optional<Workspace> workspace = Workspace::load(path, &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    QCOMPARE(workspace->servers.size(), 1);
    QCOMPARE(workspace->servers.first().command, QFileInfo(dir.path()).absoluteFilePath() + QLatin1String("/run"));
}

void TestConfigImport::launchCommandKeepsSpacedPathsTogether()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("my clone")));
    const QString folder = QFileInfo(dir.filePath(QStringLiteral("my clone"))).absoluteFilePath();
    const QString path = folder + QLatin1String("/workspace.json");
    const QByteArray json = R"({"mcpscopeWorkspace": 1, "servers": {"s": {"transport": "http", )"
                            R"("url": "http://127.0.0.1:3901/mcp", )"
                            R"("launchCommand": "${workspaceFolder}/start.sh --port 3901"}}})";
    QVERIFY(writeFile(path, json));

    ConfigError error;
    const std::optional<Workspace> workspace = Workspace::load(path, &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    const QStringList words = QProcess::splitCommand(workspace->servers.first().launchCommand);
    QCOMPARE(
        words, (QStringList { folder + QLatin1String("/start.sh"), QStringLiteral("--port"), QStringLiteral("3901") }));
}

void TestConfigImport::stripJsonc_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    const auto row = [](const char* tag, const char* input, const char* expected) {
        QTest::newRow(tag) << QByteArray(input) << QByteArray(expected);
    };
    row("trailing comma in object", R"({"a":1,})", R"({"a":1 })");
    row("trailing comma in array", "[1,2,\n]", "[1,2 \n]");
    row("trailing comma before a comment", "[1,/*x*/]", "[1      ]");
    row("line comment keeps its newline", "// c\r\n{}", "    \r\n{}");
    row("block comment keeps its newlines", "/* a\nb */{}", "    \n    {}");
    row("comment markers inside strings stay", R"({"a":"//x /*y*/"})", R"({"a":"//x /*y*/"})");
    row("escaped quote does not end the string", R"({"a":"\"//"})", R"({"a":"\"//"})");
    row("comma after an opening bracket is left for the parser", "[,1]", "[,1]");
    row("double comma is left for the parser", R"({"a":1,,})", R"({"a":1,,})");
    row("plain JSON is unchanged", R"({"a":[1,2],"b":{}})", R"({"a":[1,2],"b":{}})");
    row("multibyte text in a comment becomes spaces byte for byte", "/*\xc3\xa9*/1", "      1");
}

void TestConfigImport::stripJsonc()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    qsizetype unterminated = 0;
    QCOMPARE(McpJsonImport::stripJsonc(input, &unterminated), expected);
    QCOMPARE(unterminated, qsizetype(-1));
}

void TestConfigImport::saveLoadRoundTrip()
{
    Workspace workspace;
    ServerConfig everything = http("a-everything", TransportKind::StreamableHttp, "http://127.0.0.1:3901/mcp");
    everything.launchCommand = QStringLiteral("env PORT=3901 node index.js streamableHttp");
    everything.viaFaultProxy = true;
    everything.headers = { { QStringLiteral("Authorization"), QStringLiteral("Bearer x") } };
    everything.maxResponseBytes = 1024;
    ServerConfig local
        = stdio("b-local", QStringLiteral("/usr/bin/python3"), { QStringLiteral("-m"), QStringLiteral("srv") });
    local.env.insert(QStringLiteral("TOKEN"), QStringLiteral("s3cret"));
    local.secretEnv = QStringList { QStringLiteral("TOKEN") };
    local.cwd = QStringLiteral("/srv");
    local.keepaliveIntervalSec = 15;
    local.countToolErrors = false;
    ServerConfig sse = http("c-sse", TransportKind::LegacySse, "https://example.com/sse");
    sse.tlsVerify = false;
    sse.breakerCooldownSec = 5;
    workspace.servers = { everything, local, sse };

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("saved.mcpscope.json"));
    QString saveError;
    QVERIFY2(workspace.save(path, &saveError), qPrintable(saveError));
    QVERIFY(saveError.isEmpty());
    // Saving again replaces the file in place.
    QVERIFY2(workspace.save(path, &saveError), qPrintable(saveError));

    ConfigError error;
    const std::optional<Workspace> loaded = Workspace::load(path, &error);
    QVERIFY2(loaded, qPrintable(error.toString()));
    QCOMPARE(loaded->dialect, Dialect::McpScopeWorkspace);
    QCOMPARE(loaded->filePath, QFileInfo(path).absoluteFilePath());
    compareServers(loaded->servers, workspace.servers);

    const QJsonObject root = QJsonDocument::fromJson(workspace.toJson()).object();
    QCOMPARE(root.value(QLatin1String("mcpscopeWorkspace")).toInt(), Workspace::FormatVersion);
    QVERIFY(loaded->find(u"b-local"));
    QCOMPARE(loaded->find(u"b-local")->cwd, QStringLiteral("/srv"));
    QVERIFY(!loaded->find(u"nope"));
}

void TestConfigImport::saveFailures()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Workspace workspace;
    workspace.servers = { stdio("twin", QStringLiteral("a")) };

    const QString missingDir = dir.filePath(QStringLiteral("missing/dir/w.json"));
    QString error;
    QVERIFY(!workspace.save(missingDir, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(missingDir)), qPrintable(error));
    QVERIFY(!QFileInfo::exists(missingDir));

    workspace.servers.append(stdio("twin", QStringLiteral("b")));
    const QString path = dir.filePath(QStringLiteral("w.json"));
    QVERIFY(!workspace.save(path, &error));
    QVERIFY2(error.contains(QLatin1String("two servers are named \"twin\"")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(path));
}

void TestConfigImport::demoWorkspace()
{
    const QString path = QStringLiteral(MCPSCOPE_SOURCE_DIR "/resources/demo-workspace.json");
    ConfigError error;
    const std::optional<Workspace> workspace = Workspace::load(path, &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    QCOMPARE(workspace->dialect, Dialect::McpScopeWorkspace);
    QCOMPARE(workspace->servers.size(), 2);

    const ServerConfig* stdioServer = workspace->find(u"everything-stdio");
    QVERIFY(stdioServer);
    QCOMPARE(stdioServer->transport, TransportKind::Stdio);
    QVERIFY2(QFileInfo(stdioServer->command).isExecutable(), qPrintable(stdioServer->command));
    QVERIFY(!stdioServer->args.isEmpty());
    QVERIFY2(QFileInfo::exists(stdioServer->args.first()), qPrintable(stdioServer->args.first()));
    QVERIFY(stdioServer->args.first().endsWith(QLatin1String("server-everything/dist/index.js")));

    const ServerConfig* httpServer = workspace->find(u"everything-http");
    QVERIFY(httpServer);
    QCOMPARE(httpServer->transport, TransportKind::StreamableHttp);
    QCOMPARE(httpServer->url, QUrl(QStringLiteral("http://127.0.0.1:3901/mcp")));
    QVERIFY(httpServer->viaFaultProxy);
    const QStringList launch = QProcess::splitCommand(httpServer->launchCommand);
    QCOMPARE(launch.size(), 5);
    QCOMPARE(launch.at(0), QStringLiteral("env"));
    QCOMPARE(launch.at(1), QStringLiteral("PORT=3901"));
    QVERIFY2(QFileInfo(launch.at(2)).isExecutable(), qPrintable(launch.at(2)));
    QVERIFY2(QFileInfo::exists(launch.at(3)), qPrintable(launch.at(3)));
    QCOMPARE(launch.at(4), QStringLiteral("streamableHttp"));

    // server-everything speaks 2025-11-25, and the file says so already: the app writes an auto server's
    // probed era into its workspace only when it differs from knownEra (tst_modernera), so `make run`
    // finds what the file holds and leaves the checkout clean.
    QCOMPARE(stdioServer->era, ProtocolEra::Auto);
    QCOMPARE(stdioServer->knownEra, std::optional(ProtocolEra::Legacy));
    QCOMPARE(httpServer->era, ProtocolEra::Auto);
    QCOMPARE(httpServer->knownEra, std::optional(ProtocolEra::Legacy));
}

// The demo workspace, copied beside a tests/peers link as in the source tree: loading expands
// ${workspaceFolder}; saving, even after an edit, writes it back, and never the absolute path.
void TestConfigImport::saveKeepsPlaceholders()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("resources")));
    const QString path = dir.filePath(QStringLiteral("resources/demo-workspace.json"));
    QVERIFY(QFile::copy(QStringLiteral(MCPSCOPE_SOURCE_DIR "/resources/demo-workspace.json"), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);

    ConfigError error;
    std::optional<Workspace> workspace = Workspace::load(path, &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    const QString folder = QFileInfo(path).absolutePath();
    const ServerConfig* stdioServer = workspace->find(u"everything-stdio");
    QVERIFY(stdioServer);
    QVERIFY2(stdioServer->command.startsWith(folder), qPrintable(stdioServer->command));
    const QList<ServerConfig> loaded = workspace->servers;

    // An edit of another field keeps the placeholders of the fields it left alone.
    for (ServerConfig& server : workspace->servers) {
        if (server.name == QLatin1String("everything-http"))
            server.requestTimeoutMs = 5000;
    }
    QString saveError;
    QVERIFY2(workspace->save(path, &saveError), qPrintable(saveError));
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QByteArray text = saved.readAll();
    QVERIFY2(text.contains("${workspaceFolder}/../tests/peers/node_modules/node/bin/node"), text.constData());
    QVERIFY2(!text.contains(folder.toUtf8()), text.constData());
    const QJsonObject servers = QJsonDocument::fromJson(text).object().value(QLatin1String("servers")).toObject();
    const QJsonObject http = servers.value(QLatin1String("everything-http")).toObject();
    QVERIFY2(http.value(QLatin1String("launchCommand"))
                 .toString()
                 .startsWith(QLatin1String("env PORT=3901 ${workspaceFolder}/")),
        text.constData());
    QCOMPARE(http.value(QLatin1String("requestTimeoutMs")).toInt(), 5000);
    const QJsonArray args
        = servers.value(QLatin1String("everything-stdio")).toObject().value(QLatin1String("args")).toArray();
    QVERIFY(args.at(0).toString().startsWith(QLatin1String("${workspaceFolder}/")));
    QCOMPARE(args.at(1).toString(), QStringLiteral("stdio"));

    // Round trip: what loads again is what was saved.
    const std::optional<Workspace> again = Workspace::load(path, &error);
    QVERIFY2(again, qPrintable(error.toString()));
    compareServers(again->servers, workspace->servers);
    QVERIFY(loaded != workspace->servers); // the edit is in it
    // And a second save of the reloaded workspace writes the same file.
    QVERIFY(again->save(path, &saveError));
    QFile resaved(path);
    QVERIFY(resaved.open(QIODevice::ReadOnly));
    QCOMPARE(resaved.readAll(), text);
}

// A field whose value no longer comes from its placeholder (edited, or saved to another folder where
// ${workspaceFolder} means something else) is written as the value it has.
void TestConfigImport::saveElsewhereWritesExpandedValues()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("a")));
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("b")));
    const QString path = dir.filePath(QStringLiteral("a/w.json"));
    QVERIFY(writeFile(path,
        R"({"mcpscopeWorkspace": 1, "servers": {"s": {"command": "${workspaceFolder}/bin/srv",
            "args": ["--home", "${userHome}", "${workspaceFolder}/data"], "env": {"T": "${env:MCPSCOPE_TEST_TOKEN}"}}}})"));
    ConfigError error;
    std::optional<Workspace> workspace = Workspace::load(path, &error);
    QVERIFY2(workspace, qPrintable(error.toString()));
    workspace->servers[0].args[2] = QStringLiteral("/elsewhere/data");

    const QString other = dir.filePath(QStringLiteral("b/w.json"));
    QString saveError;
    QVERIFY2(workspace->save(other, &saveError), qPrintable(saveError));
    QFile saved(other);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QJsonObject server = QJsonDocument::fromJson(saved.readAll())
                                   .object()
                                   .value(QLatin1String("servers"))
                                   .toObject()
                                   .value(QLatin1String("s"))
                                   .toObject();
    // Another folder: the command keeps the absolute path it had; ${userHome} and ${env:} mean the same.
    QCOMPARE(server.value(QLatin1String("command")).toString(), dir.filePath(QStringLiteral("a/bin/srv")));
    const QJsonArray args = server.value(QLatin1String("args")).toArray();
    QCOMPARE(args.at(1).toString(), QStringLiteral("${userHome}"));
    QCOMPARE(args.at(2).toString(), QStringLiteral("/elsewhere/data"));
    QCOMPARE(server.value(QLatin1String("env")).toObject().value(QLatin1String("T")).toString(),
        QStringLiteral("${env:MCPSCOPE_TEST_TOKEN}"));
}

void TestConfigImport::neverCrashesOnDamagedInput()
{
    const QStringList files = QDir(dataDir()).entryList(QDir::Files);
    QVERIFY(!files.isEmpty());
    QRandomGenerator random(20240229);
    const char noise[] = "{}[],:\"/*\\ \n0123456789.-eE$";
    int parsed = 0;
    int rejected = 0;
    const auto check = [&](const QByteArray& data, const QString& name) {
        ConfigError error;
        if (McpJsonImport::parse(data, name, &error)) {
            QVERIFY(error.isNull());
            ++parsed;
        } else {
            QVERIFY(!error.isNull());
            QCOMPARE(error.file, name);
            ++rejected;
        }
    };

    for (const QString& name : files) {
        QFile file(dataFile(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray original = file.readAll();
        for (qsizetype length = 0; length < original.size(); ++length) {
            check(original.left(length), name);
            if (QTest::currentTestFailed())
                return;
        }
        for (int round = 0; round < 200 && !original.isEmpty(); ++round) {
            QByteArray damaged = original;
            const int edits = 1 + random.bounded(4);
            for (int e = 0; e < edits; ++e) {
                const qsizetype at = random.bounded(int(damaged.size()));
                damaged[at] = noise[random.bounded(int(sizeof(noise) - 1))];
            }
            check(damaged, name);
            if (QTest::currentTestFailed())
                return;
        }
    }
    QVERIFY(parsed > 0);
    QVERIFY(rejected > 0);
}

QTEST_GUILESS_MAIN(TestConfigImport)
#include "tst_configimport.moc"
