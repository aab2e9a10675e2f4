#pragma once

#include "jsonrpc/protocolera.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <QUrl>

#include <optional>

namespace mcpscope {

enum class TransportKind {
    Stdio,
    StreamableHttp,
    LegacySse,
    AutoHttp, // try Streamable HTTP first, fall back to the 2024-11-05 HTTP+SSE transport
};

// The names used in workspace files: "stdio", "http", "sse", "auto".
QString transportKindName(TransportKind kind);
std::optional<TransportKind> transportKindFromName(QStringView name);

// Where a configuration problem is and what it is. Syntax errors carry a line and column;
// shape errors carry the key path instead, because QJsonDocument keeps no positions.
struct ConfigError
{
    QString file;
    int line = 0; // 1-based; 0 when unknown
    int column = 0; // 1-based, in characters; 0 when unknown
    QString key; // dotted path such as "mcpServers.weather.args"
    QString message; // translated

    // "demo.json:12:5: not valid JSON: ..." or "demo.json: servers.foo.args: expected an array of strings".
    QString toString() const;
    bool isNull() const { return message.isEmpty(); }
};

// Appends a server name or field to a key path. Names that would make the path ambiguous
// (dots, spaces, brackets) are written as ["name"].
QString configKeyPath(const QString& parent, const QString& child);

struct ServerConfig
{
    QString name;
    TransportKind transport = TransportKind::Stdio;

    // stdio
    QString command;
    QStringList args;
    QMap<QString, QString> env;
    QString cwd;
    QStringList secretEnv; // names of env vars whose values must not appear in logs

    // HTTP
    QUrl url;
    QList<QPair<QString, QString>> headers;
    QStringList secretHeaders; // names of headers (besides Authorization, Cookie, …) whose values are secret
    bool tlsVerify = true;
    // Started before connecting, for servers that only exist while their process runs.
    // A shell-style command line, split by CommandLine::split() (single and double quotes).
    QString launchCommand;
    // OAuth (issue 13). The client id is public and lives in the workspace; the secret and the private key
    // never do: the token store keeps them, and these two in-memory fields only carry them from the CLI's
    // --client-secret / --client-key (toJson() never writes them).
    QString oauthClientId;
    QString oauthGrant; // "" or "authorization_code" (a user in a browser), or "client_credentials"
    QString oauthClientSecret;
    QByteArray oauthClientKeyPem;

    // Folders offered to the server as MCP roots (roots/list): local paths or file: URIs, in the order given.
    QStringList roots;
    // Canned answers to the server's own requests, for scripted testing in the app: {"sampling": {"text",
    // "model"} or a full CreateMessageResult, "elicitation": {"action", "content"}} (ScriptedResponder's
    // shape). A request whose method has an entry here is answered at once; the rest wait in the panel.
    QJsonObject autoReply;

    // The protocol era (MCP-NOTES.md, 2026-07-28): auto probes with server/discover, then falls back to
    // legacy. knownEra is what the last probe found (legacy or modern), kept with the workspace so a silent
    // server costs the probe's timeout once, not on every start; a failed assumption probes again.
    // Auto is the default, as in the official Inspector.
    ProtocolEra era = ProtocolEra::Auto;
    std::optional<ProtocolEra> knownEra;
    // per-server policy
    int requestTimeoutMs = 60000;
    int keepaliveIntervalSec = 0; // 0 = no keepalive pings
    qint64 maxResponseBytes = 64LL * 1024 * 1024;
    int breakerThreshold = 3;
    int breakerCooldownSec = 60;
    // stdio: how long a server may take to exit by itself once its stdin is closed, before SIGTERM to its
    // process group (SIGKILL follows 2 s later). Unset: the program's own default, 2 s in the app (the
    // SDK's) and 250 ms in mcpscope-cli, whose one-shot commands end once the answer is in.
    std::optional<int> exitWaitMs;
    bool countToolErrors = true;
    bool idempotentReplay = false;
    bool viaFaultProxy = false;

    bool isHttp() const { return transport != TransportKind::Stdio; }

    // The roots/list answer for `roots`: [{"uri": "file:///…", "name": "<folder name>"}].
    QJsonArray rootsJson() const;

    // The workspace form of one server, without its name and without fields that hold
    // their default value, so workspace files stay short and pick up new defaults.
    // "headers" becomes an object: a repeated header name keeps only its last value.
    QJsonObject toJson() const;

    // Reads the workspace form. On failure sets *error (key relative to keyPath, which
    // defaults to "servers.<name>"; file left empty for the caller) and returns a
    // default-constructed config; on success clears *error. Unknown keys are ignored.
    // A missing "transport" means stdio, or "auto" when only "url" is given.
    static ServerConfig fromJson(
        const QString& name, const QJsonObject& json, ConfigError* error, const QString& keyPath = {});

    bool operator==(const ServerConfig&) const = default;
};

} // namespace mcpscope
