#include "authstep.h"

#include "jsonrpc/enumnames.h"

namespace mcpscope {

namespace {
constexpr EnumName<AuthStep::Kind> KindEntries[] = {
    { AuthStep::Kind::Challenge, u"challenge" },
    { AuthStep::Kind::ResourceMetadata, u"resource_metadata" },
    { AuthStep::Kind::ServerMetadata, u"server_metadata" },
    { AuthStep::Kind::Registration, u"registration" },
    { AuthStep::Kind::Authorize, u"authorize" },
    { AuthStep::Kind::Callback, u"callback" },
    { AuthStep::Kind::Token, u"token" },
    { AuthStep::Kind::Refresh, u"refresh" },
    { AuthStep::Kind::Revoke, u"revoke" },
    { AuthStep::Kind::Retry, u"retry" },
};
constexpr EnumNames<AuthStep::Kind> KindNames(KindEntries);

constexpr EnumName<AuthStep::Status> StatusEntries[] = {
    { AuthStep::Status::Running, u"running" },
    { AuthStep::Status::Ok, u"ok" },
    { AuthStep::Status::Failed, u"failed" },
    { AuthStep::Status::Skipped, u"skipped" },
};
constexpr EnumNames<AuthStep::Status> StatusNames(StatusEntries);
} // namespace

QString AuthStep::kindName(Kind kind)
{
    return KindNames.name(kind);
}

QString AuthStep::statusName(Status status)
{
    return StatusNames.name(status);
}

} // namespace mcpscope
