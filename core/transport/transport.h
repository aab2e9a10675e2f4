#pragma once

#include "jsonrpc/jsonrpcmessage.h"
#include "transportfailure.h"
#include "wireexchange.h"

#include <QMetaMethod>
#include <QObject>

#include <functional>

namespace mcpscope {

enum class WireDirection { Outgoing, Incoming };

/// Moves JSON-RPC messages to and from one MCP server. Subclasses: stdio, Streamable HTTP, legacy SSE.
///
/// Signals:
/// - opened: the channel can carry messages (child started, endpoint known).
/// - messageReceived: one decoded message from the server, in arrival order.
/// - requestWritten: the bytes of the request with this id were fully handed to the peer.
/// - requestFailed: one request failed with its own evidence (HTTP: its POST got 404, reset, …).
/// - channelFailed: the whole channel failed or could not open; every request in flight is affected.
/// - closed: a close() or abort() finished and nothing of the peer is left running.
/// - serverLog: free-form text from the server outside the protocol (stdio stderr, non-JSON lines).
/// - notice: McpScope's own word about the channel (a missing GET stream, a failed background
///   exchange): never the server's output, so views label it as McpScope's, not as stderr.
/// - traffic: every wire message in both directions, for the traffic view and the call log.
/// - exchangeRecorded: what went over the wire for the request with this id (its HTTP requests and
///   responses, or its stdio lines), emitted right before the signal that settles the request
///   (messageReceived with its answer, requestFailed, or channelFailed), so a listener can attach it
///   to the request before the answer is handled. Only while something is connected to it.
class Transport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Transport() override = default;

    virtual void open() = 0;
    virtual void send(const JsonRpcMessage& message) = 0;
    /// Graceful shutdown; emits closed() when done.
    virtual void close() = 0;
    /// Drops the channel now, with requests in flight (the "kill transport" action).
    virtual void abort() = 0;
    /// The session id the transport carries (HTTP), or an identity for the peer (stdio: "pid:N").
    virtual QString sessionId() const = 0;
    /// The id the server gave this channel, empty when it gave none: what a person is shown (sessionId()
    /// may be a local stand-in, e.g. "connection:N" for a Streamable HTTP server without sessions).
    virtual QString assignedSessionId() const { return sessionId(); }
    virtual void setProtocolVersion(const QString& version) { Q_UNUSED(version) }
    /// Extra HTTP headers of one outgoing message (the 2026-07-28 revision's Mcp-Method, Mcp-Name and
    /// Mcp-Param-*), asked for every message; stdio never asks.
    using HeaderSource = std::function<QList<QPair<QByteArray, QByteArray>>(const JsonRpcMessage&)>;
    /// The 2026-07-28 revision (sessionless): with modern set, an HTTP transport sends MCP-Protocol-Version
    /// and the source's headers on every POST, keeps no session id, opens no GET stream and sends no DELETE;
    /// a JSON-RPC error in a 4xx body (other than 401 and 403) is delivered as the request's answer, since
    /// that is how the revision's errors arrive. Stdio changes nothing.
    virtual void setModern(bool modern, const QString& version, HeaderSource headers)
    {
        Q_UNUSED(modern)
        Q_UNUSED(version)
        Q_UNUSED(headers)
    }
    /// Ends one request by closing its response stream, which is how the 2026-07-28 revision cancels on
    /// HTTP; false when this transport cancels with notifications/cancelled instead (stdio, legacy HTTP).
    virtual bool dropRequest(const QJsonValue& id)
    {
        Q_UNUSED(id)
        return false;
    }
    /// Forgets the session id without telling the server (the client-side expiry action).
    virtual void forgetSession() { }
    /// Whether the server keeps a session for this channel that it can be asked to end (Streamable
    /// HTTP): what the expiry actions need.
    virtual bool hasServerSession() const { return false; }
    /// Asks the server to end the session (the server-side expiry action).
    virtual void terminateSession() { }
    /// Freezes the peer, so that a following abort() lands before it reads anything (stdio: SIGSTOP
    /// to the child's process group): what the kill-after-write fault needs to be deterministic.
    virtual void suspendPeer() { }
    /// Closes the direction towards the peer without shutting down, after what is already queued
    /// (stdio: the child's stdin): the close-stdin fault.
    virtual void closeWriteChannel() { }

Q_SIGNALS:
    void opened();
    void messageReceived(const mcpscope::JsonRpcMessage& message);
    void requestWritten(const QJsonValue& id);
    void requestFailed(const QJsonValue& id, const mcpscope::TransportFailure& failure);
    void channelFailed(const mcpscope::TransportFailure& failure);
    void closed();
    void serverLog(const QString& line);
    void notice(const QString& text);
    void traffic(mcpscope::WireDirection direction, const QByteArray& bytes);
    /// Bytes that arrived but are not a JSON-RPC message. id is set when it could be recovered.
    void malformedMessage(const QString& reason, const QByteArray& excerpt, const QJsonValue& id);
    void exchangeRecorded(const QJsonValue& id, const mcpscope::WireExchange& exchange);

protected:
    /// Whether exchangeRecorded has a listener: recording costs copies nobody may want.
    bool recordsExchanges() const
    {
        static const QMetaMethod signal = QMetaMethod::fromSignal(&Transport::exchangeRecorded);
        return isSignalConnected(signal);
    }
};

} // namespace mcpscope
