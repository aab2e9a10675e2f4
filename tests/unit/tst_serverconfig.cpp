#include "config/serverconfig.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace mcpscope;

namespace mcpscope {
// Lets QCOMPARE print both sides when two configs differ.
char* toString(const ServerConfig& config)
{
    const QByteArray json = QJsonDocument(config.toJson()).toJson(QJsonDocument::Compact);
    const QByteArray text = config.name.toUtf8() + ' ' + json;
    return qstrdup(text.constData());
}
} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::ServerConfig)
Q_DECLARE_METATYPE(mcpscope::TransportKind)

namespace {

QJsonObject parseObject(const char* json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad JSON in test data: %s", qPrintable(error.errorString()));
    return document.object();
}

ServerConfig stdioServer()
{
    ServerConfig config;
    config.name = QStringLiteral("local");
    config.command = QStringLiteral("node");
    return config;
}

} // namespace

class TestServerConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void transportNames_data();
    void transportNames();
    void unknownTransportName();
    void roundTrip_data();
    void roundTrip();
    void defaultsOmitted_data();
    void defaultsOmitted();
    void transportInferred_data();
    void transportInferred();
    void badFields_data();
    void badFields();
    void unknownKeysIgnored();
    void errorToString_data();
    void errorToString();
    void keyPaths_data();
    void keyPaths();
    void emptyNameRejected();
    void equality();
};

void TestServerConfig::transportNames_data()
{
    QTest::addColumn<TransportKind>("kind");
    QTest::addColumn<QString>("name");
    QTest::newRow("stdio") << TransportKind::Stdio << QStringLiteral("stdio");
    QTest::newRow("streamable HTTP is http") << TransportKind::StreamableHttp << QStringLiteral("http");
    QTest::newRow("legacy SSE is sse") << TransportKind::LegacySse << QStringLiteral("sse");
    QTest::newRow("auto HTTP is auto") << TransportKind::AutoHttp << QStringLiteral("auto");
}

void TestServerConfig::transportNames()
{
    QFETCH(TransportKind, kind);
    QFETCH(QString, name);
    QCOMPARE(transportKindName(kind), name);
    QCOMPARE(transportKindFromName(name), std::optional<TransportKind>(kind));
}

void TestServerConfig::unknownTransportName()
{
    QVERIFY(!transportKindFromName(u"websocket"));
    QVERIFY(!transportKindFromName(u""));
    QVERIFY(!transportKindFromName(u"HTTP"));
}

void TestServerConfig::roundTrip_data()
{
    QTest::addColumn<ServerConfig>("config");

    ServerConfig stdio = stdioServer();
    stdio.args = QStringList { QStringLiteral("server.js"), QStringLiteral("--port"), QStringLiteral("3000") };
    stdio.env.insert(QStringLiteral("API_KEY"), QStringLiteral("secret"));
    stdio.env.insert(QStringLiteral("EMPTY"), QString());
    stdio.cwd = QStringLiteral("/srv/mcp");
    stdio.secretEnv = QStringList { QStringLiteral("API_KEY") };
    QTest::newRow("stdio with args, env, cwd and secret env") << stdio;

    ServerConfig http;
    http.name = QStringLiteral("remote");
    http.transport = TransportKind::StreamableHttp;
    http.url = QUrl(QStringLiteral("https://mcp.example.com:8443/v1/mcp?tenant=a%20b"));
    http.headers = { { QStringLiteral("Authorization"), QStringLiteral("Bearer xyz") },
        { QStringLiteral("X-Trace"), QStringLiteral("1") } };
    http.tlsVerify = false;
    QTest::newRow("streamable HTTP with headers and TLS checks off") << http;

    ServerConfig sse;
    sse.name = QStringLiteral("old");
    sse.transport = TransportKind::LegacySse;
    sse.url = QUrl(QStringLiteral("http://localhost:8080/sse"));
    QTest::newRow("legacy SSE") << sse;

    ServerConfig everything;
    everything.name = QStringLiteral("every field");
    everything.transport = TransportKind::AutoHttp;
    everything.command = QStringLiteral("/usr/bin/server");
    everything.args = QStringList { QStringLiteral("a b"), QStringLiteral("\"quoted\"") };
    everything.env.insert(QStringLiteral("TOKEN"), QStringLiteral("t\u00e9st"));
    everything.cwd = QStringLiteral("/tmp");
    everything.secretEnv = QStringList { QStringLiteral("TOKEN"), QStringLiteral("OTHER") };
    everything.url = QUrl(QStringLiteral("http://127.0.0.1:3901/mcp"));
    everything.headers = { { QStringLiteral("X-Api-Key"), QStringLiteral("k") } };
    everything.secretHeaders = QStringList { QStringLiteral("X-Api-Key") };
    everything.tlsVerify = false;
    everything.launchCommand = QStringLiteral("env PORT=3901 node dist/index.js streamableHttp");
    everything.requestTimeoutMs = 1500;
    everything.keepaliveIntervalSec = 30;
    everything.maxResponseBytes = 5LL * 1024 * 1024 * 1024;
    everything.breakerThreshold = 7;
    everything.breakerCooldownSec = 0;
    everything.countToolErrors = false;
    everything.idempotentReplay = true;
    everything.viaFaultProxy = true;
    everything.exitWaitMs = 0;
    QTest::newRow("every field away from its default") << everything;
}

void TestServerConfig::roundTrip()
{
    QFETCH(ServerConfig, config);
    const QJsonObject json = config.toJson();

    // Through text as well, the way a workspace file stores it.
    const QJsonObject reread = QJsonDocument::fromJson(QJsonDocument(json).toJson()).object();
    ConfigError error;
    const ServerConfig parsed = ServerConfig::fromJson(config.name, reread, &error);
    QVERIFY2(error.isNull(), qPrintable(error.toString()));
    QCOMPARE(parsed, config);
}

void TestServerConfig::defaultsOmitted_data()
{
    QTest::addColumn<ServerConfig>("config");
    QTest::addColumn<QByteArray>("expectedJson");

    QTest::newRow("stdio needs only its command") << stdioServer() << QByteArray(R"({"command":"node"})");

    ServerConfig http;
    http.name = QStringLiteral("remote");
    http.transport = TransportKind::StreamableHttp;
    http.url = QUrl(QStringLiteral("http://localhost:3001/mcp"));
    QTest::newRow("HTTP writes its transport and URL")
        << http << QByteArray(R"({"transport":"http","url":"http://localhost:3001/mcp"})");

    ServerConfig policy = stdioServer();
    policy.requestTimeoutMs = 1000;
    policy.tlsVerify = true;
    policy.countToolErrors = true;
    QTest::newRow("only the policy value that differs")
        << policy << QByteArray(R"({"command":"node","requestTimeoutMs":1000})");
}

void TestServerConfig::defaultsOmitted()
{
    QFETCH(ServerConfig, config);
    QFETCH(QByteArray, expectedJson);
    QCOMPARE(QJsonDocument(config.toJson()).toJson(QJsonDocument::Compact), expectedJson);
}

void TestServerConfig::transportInferred_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<TransportKind>("expected");
    QTest::newRow("command alone is stdio") << QByteArray(R"({"command":"node"})") << TransportKind::Stdio;
    QTest::newRow("url alone is auto") << QByteArray(R"({"url":"http://h/mcp"})") << TransportKind::AutoHttp;
    QTest::newRow("empty transport counts as absent")
        << QByteArray(R"({"transport":"","url":"http://h/mcp"})") << TransportKind::AutoHttp;
    QTest::newRow("explicit transport wins over command")
        << QByteArray(R"({"transport":"sse","command":"x","url":"http://h/sse"})") << TransportKind::LegacySse;
}

void TestServerConfig::transportInferred()
{
    QFETCH(QByteArray, json);
    QFETCH(TransportKind, expected);
    ConfigError error;
    const ServerConfig config = ServerConfig::fromJson(QStringLiteral("s"), parseObject(json.constData()), &error);
    QVERIFY2(error.isNull(), qPrintable(error.toString()));
    QCOMPARE(config.transport, expected);
}

void TestServerConfig::badFields_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("phrase");

    const auto row = [](const char* tag, const char* json, const char* key, const char* phrase) {
        QTest::newRow(tag) << QByteArray(json) << QString::fromUtf8(key) << QString::fromUtf8(phrase);
    };
    row("args is a string", R"({"command":"x","args":"a b"})", "servers.demo.args", "expected an array of strings");
    row("args holds a number", R"({"command":"x","args":["a",2]})", "servers.demo.args", "item 2 is not a string");
    row("env is an array", R"({"command":"x","env":["A=1"]})", "servers.demo.env", "expected an object of strings");
    row("env value is a number", R"({"command":"x","env":{"PORT":8080}})", "servers.demo.env",
        "\"PORT\" is not a string");
    row("command is an array", R"({"command":["node","x.js"]})", "servers.demo.command", "expected a string");
    row("cwd is a boolean", R"({"command":"x","cwd":true})", "servers.demo.cwd", "expected a string");
    row("secretEnv is a string", R"({"command":"x","secretEnv":"TOKEN"})", "servers.demo.secretEnv",
        "expected an array of strings");
    row("headers is a string", R"({"url":"http://h/mcp","headers":"Authorization: x"})", "servers.demo.headers",
        "expected an object of strings");
    row("tlsVerify is a string", R"({"url":"http://h/mcp","tlsVerify":"no"})", "servers.demo.tlsVerify",
        "expected true or false");
    row("launchCommand is an array", R"({"url":"http://h/mcp","launchCommand":["node"]})", "servers.demo.launchCommand",
        "expected a string");
    row("timeout is a string", R"({"command":"x","requestTimeoutMs":"60s"})", "servers.demo.requestTimeoutMs",
        "expected a whole number");
    row("timeout is fractional", R"({"command":"x","requestTimeoutMs":1.5})", "servers.demo.requestTimeoutMs",
        "expected a whole number");
    row("timeout is zero", R"({"command":"x","requestTimeoutMs":0})", "servers.demo.requestTimeoutMs",
        "must be at least 1");
    row("keepalive is negative", R"({"command":"x","keepaliveIntervalSec":-5})", "servers.demo.keepaliveIntervalSec",
        "must be at least 0");
    row("breaker threshold beyond int", R"({"command":"x","breakerThreshold":3000000000})",
        "servers.demo.breakerThreshold", "must be at most 2147483647");
    row("max response bytes written with a unit", R"({"command":"x","maxResponseBytes":"64MB"})",
        "servers.demo.maxResponseBytes", "expected a whole number");
    row("cooldown is a boolean", R"({"command":"x","breakerCooldownSec":false})", "servers.demo.breakerCooldownSec",
        "expected a whole number");
    row("countToolErrors is a number", R"({"command":"x","countToolErrors":1})", "servers.demo.countToolErrors",
        "expected true or false");
    row("idempotentReplay is a string", R"({"command":"x","idempotentReplay":"yes"})", "servers.demo.idempotentReplay",
        "expected true or false");
    row("viaFaultProxy is an object", R"({"url":"http://h/mcp","viaFaultProxy":{}})", "servers.demo.viaFaultProxy",
        "expected true or false");
    row("exitWaitMs is negative", R"({"command":"x","exitWaitMs":-1})", "servers.demo.exitWaitMs",
        "must be at least 0");
    row("unknown transport", R"({"transport":"websocket","url":"ws://h"})", "servers.demo.transport",
        "unknown transport type \"websocket\"");
    row("transport is a number", R"({"transport":1,"command":"x"})", "servers.demo.transport", "expected a string");
    row("url with ftp scheme", R"({"url":"ftp://h/mcp"})", "servers.demo.url",
        "expected an http or https URL with a host");
    row("url without host", R"({"transport":"http","url":"http:///mcp"})", "servers.demo.url",
        "expected an http or https URL with a host");
    row("url without scheme", R"({"url":"localhost:3000/mcp"})", "servers.demo.url",
        "expected an http or https URL with a host");
    row("stdio without command", R"({"transport":"stdio","args":["a"]})", "servers.demo",
        "missing \"command\", which a stdio server needs");
    row("http without url", R"({"transport":"http","headers":{}})", "servers.demo",
        "missing \"url\", which an HTTP server needs");
    row("neither command nor url", R"({"args":["a"]})", "servers.demo", "missing \"command\" or \"url\"");
    row("empty command", R"({"command":""})", "servers.demo", "missing \"command\" or \"url\"");
}

void TestServerConfig::badFields()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, key);
    QFETCH(QString, phrase);

    ConfigError error;
    const ServerConfig config = ServerConfig::fromJson(QStringLiteral("demo"), parseObject(json.constData()), &error);
    QVERIFY(!error.isNull());
    QCOMPARE(error.key, key);
    QVERIFY2(error.message.contains(phrase), qPrintable(error.message));
    QVERIFY2(error.toString().contains(key + QLatin1String(": ")), qPrintable(error.toString()));
    QCOMPARE(config, ServerConfig {});
}

void TestServerConfig::unknownKeysIgnored()
{
    ConfigError error;
    const ServerConfig config = ServerConfig::fromJson(
        QStringLiteral("s"), parseObject(R"({"command":"x","futureOption":{"a":1},"cwd":null})"), &error);
    QVERIFY2(error.isNull(), qPrintable(error.toString()));
    QCOMPARE(config.command, QStringLiteral("x"));
    QVERIFY(config.cwd.isEmpty());

    // A later successful parse clears an earlier error.
    error.message = QStringLiteral("stale");
    ServerConfig::fromJson(QStringLiteral("s"), parseObject(R"({"command":"x"})"), &error);
    QVERIFY(error.isNull());
}

void TestServerConfig::errorToString_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("expected");
    const QString message = QStringLiteral("expected an array of strings");
    QTest::newRow("file, line and column") << QStringLiteral("demo.json") << 12 << 5 << QString()
                                           << QStringLiteral("demo.json:12:5: expected an array of strings");
    QTest::newRow("file and key") << QStringLiteral("demo.json") << 0 << 0 << QStringLiteral("servers.foo.args")
                                  << QStringLiteral("demo.json: servers.foo.args: expected an array of strings");
    QTest::newRow("key without file") << QString() << 0 << 0 << QStringLiteral("servers.foo.args")
                                      << QStringLiteral("servers.foo.args: expected an array of strings");
    QTest::newRow("line without column") << QStringLiteral("a.json") << 3 << 0 << QString()
                                         << QStringLiteral("a.json:3: expected an array of strings");
}

void TestServerConfig::errorToString()
{
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, key);
    QFETCH(QString, expected);
    ConfigError error;
    QVERIFY(error.isNull());
    error.file = file;
    error.line = line;
    error.column = column;
    error.key = key;
    error.message = QStringLiteral("expected an array of strings");
    QVERIFY(!error.isNull());
    QCOMPARE(error.toString(), expected);
}

void TestServerConfig::keyPaths_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain name joins with a dot")
        << QStringLiteral("weather-2_b") << QStringLiteral("servers.weather-2_b");
    QTest::newRow("dotted name is bracketed") << QStringLiteral("a.b") << QStringLiteral("servers[\"a.b\"]");
    QTest::newRow("spaces are bracketed") << QStringLiteral("my server") << QStringLiteral("servers[\"my server\"]");
    QTest::newRow("quotes are escaped") << QStringLiteral("say \"hi\"")
                                        << QStringLiteral("servers[\"say \\\"hi\\\"\"]");
    QTest::newRow("empty name is bracketed") << QString() << QStringLiteral("servers[\"\"]");
}

void TestServerConfig::keyPaths()
{
    QFETCH(QString, name);
    QFETCH(QString, expected);
    QCOMPARE(configKeyPath(QStringLiteral("servers"), name), expected);
}

void TestServerConfig::emptyNameRejected()
{
    ConfigError error;
    ServerConfig::fromJson(QString(), parseObject(R"({"command":"x"})"), &error);
    QCOMPARE(error.key, QStringLiteral("servers[\"\"]"));
    QVERIFY2(error.message.contains(QLatin1String("name is empty")), qPrintable(error.message));
}

void TestServerConfig::equality()
{
    const ServerConfig a = stdioServer();
    ServerConfig b = a;
    QVERIFY(a == b);
    b.headers.append({ QStringLiteral("X"), QStringLiteral("1") });
    QVERIFY(a != b);
    b = a;
    b.env.insert(QStringLiteral("A"), QStringLiteral("1"));
    QVERIFY(a != b);
    b = a;
    b.viaFaultProxy = true;
    QVERIFY(a != b);
}

QTEST_GUILESS_MAIN(TestServerConfig)
#include "tst_serverconfig.moc"
