#include "exitcodes.h"

#include "recovery/failureclassifier.h"
#include "session/clientsession.h"

namespace mcpscope {

QString exitCodesHelp()
{
    return QStringLiteral("Exit codes:\n"
                          "  0 success   1 the tool returned isError   2 usage or config error   3 outcome uncertain\n"
                          "  4 transport or protocol failure   5 authorization needed   6 breaker open   7 timeout\n");
}

int exitCodeFor(FailureKind kind)
{
    switch (kind) {
    case FailureKind::Timeout:
        return ExitTimeout;
    case FailureKind::AuthRequired:
    case FailureKind::InsufficientScope:
        return ExitAuthRequired;
    case FailureKind::ToolError:
        return ExitToolError;
    default:
        return ExitTransportFailure;
    }
}

int exitCodeFor(const Reply& reply)
{
    switch (reply.status) {
    case Reply::Status::Ok:
        return ExitSuccess;
    case Reply::Status::TimedOut:
        return ExitTimeout;
    case Reply::Status::RpcError:
        return ExitTransportFailure;
    case Reply::Status::Failed:
    case Reply::Status::Cancelled:
        return exitCodeFor(FailureClassifier::kindOf(reply.failure));
    }
    return ExitTransportFailure;
}

} // namespace mcpscope
