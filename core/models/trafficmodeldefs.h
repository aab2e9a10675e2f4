#pragma once

#include <Qt>

namespace mcpscope {

/// Where a traffic row came from.
enum class TrafficDirection : quint8 {
    Outgoing, ///< a JSON-RPC message the client sent
    Incoming, ///< a JSON-RPC message the server sent
    Stderr, ///< a line of the server's output: the stdio child's stderr, a launch command's output (serverLog)
    Log, ///< a notifications/message log entry (the wire message itself, or logMessage)
    Action, ///< a manual action or a fired fault (actionLogged)
    Notice, ///< McpScope's own word about the server (notice): shown as "mcpscope", never as stderr
};

/// What a wire message is, from a cheap scan of its top-level keys (no full parse).
enum class TrafficMessageKind : quint8 {
    Other, ///< not a JSON-RPC message (stderr text, an action, malformed bytes)
    Request, ///< "method" and "id"
    Notification, ///< "method" without "id"
    Response, ///< "id" with "result"
    ErrorResponse, ///< "id" with "error"
    Batch, ///< a JSON array
    Log, ///< a decoded log entry (TrafficDirection::Log)
};

/// The MCP log levels (RFC 5424 severities, least severe first), for a level filter. NoLevel: not a log row.
enum class TrafficLogLevel : qint8 { NoLevel = -1, Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency };

namespace TrafficModelColumn {
enum Column {
    Time, ///< qint64: when the row was recorded, ms since the epoch
    Server, ///< QString
    Direction, ///< int: a TrafficDirection
    /// QString: a request's or notification's method; for a response, the method of the request it
    /// answers when that request was seen (else empty; RpcIdRole has the id); the logger for a Log
    /// row; the action kind ("action", "fault", "reconnect") for an Action row; empty for Stderr.
    Method,
    Size, ///< qint64: bytes of the message as it went over the wire (Log: of the encoded entry)
    Text, ///< QString: the row in one line, as TextRole
    Count
};
} // namespace TrafficModelColumn

/// Roles of TrafficModel, the same value in every column of a row.
namespace TrafficModelRole {
enum Role {
    TimestampRole = Qt::UserRole + 1, ///< qint64 ms since the epoch
    ServerRole, ///< QString
    DirectionRole, ///< int: a TrafficDirection
    KindRole, ///< int: a TrafficMessageKind
    MethodRole, ///< QString, as the Method column
    RpcIdRole, ///< the JSON-RPC id: qint64 for a number, QString for a string, invalid when absent
    SizeRole, ///< qint64
    PayloadRole, ///< QByteArray: the message (Log: compact JSON {level, logger, data}; text rows: UTF-8)
    LogLevelRole, ///< int: a TrafficLogLevel; NoLevel except on Log rows
    /// QString, one line of at most TrafficModel::TextChars characters: a Log row's data (a string as
    /// it is, else compact JSON), a text row's line, a JSON-RPC message's start.
    TextRole,
};
} // namespace TrafficModelRole

} // namespace mcpscope
