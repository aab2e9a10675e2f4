#include "presentation.h"

#include <QCoreApplication>

namespace mcpscope {

// The protocol era's words (MCP-NOTES.md, "The 2026-07-28 revision"): the servers list, the server dialog.

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("mcpscope::Presentation", text);
}
} // namespace

QString Presentation::eraText(ProtocolEra era, bool detected, const QString& sessionId)
{
    if (!detected)
        return protocolEraName(era);
    if (era == ProtocolEra::Modern)
        return tr("modern · sessionless");
    return sessionId.isEmpty() ? tr("legacy") : tr("legacy · session %1").arg(shortSessionId(sessionId));
}

QString Presentation::eraToolTip(ProtocolEra era, bool detected, std::optional<ProtocolEra> known)
{
    if (detected)
        return era == ProtocolEra::Modern
            ? tr("Spoken in MCP 2026-07-28: no session, no initialize; every request carries its own _meta. "
                 "ping and logging/setLevel do not exist in this revision.")
            : tr("Spoken in MCP 2025-11-25 (or earlier): initialize, then a session.");
    switch (era) {
    case ProtocolEra::Auto:
        if (known)
            return tr("Auto: the last probe found a %1 server; the next connect starts from that.")
                .arg(protocolEraName(*known));
        return tr("Auto: the next connect probes with server/discover and falls back to 2025-11-25.");
    case ProtocolEra::Legacy:
        return tr("Legacy: always 2025-11-25 with initialize and a session, never probed.");
    case ProtocolEra::Modern:
        return tr("Modern: always 2026-07-28, sessionless, never falls back.");
    }
    return {};
}

QString Presentation::eraChoiceText(ProtocolEra era)
{
    switch (era) {
    case ProtocolEra::Auto:
        return tr("Auto (probe, then remember)");
    case ProtocolEra::Legacy:
        return tr("Legacy (2025-11-25, sessions)");
    case ProtocolEra::Modern:
        return tr("Modern (2026-07-28, sessionless)");
    }
    return {};
}

QString Presentation::eraChoiceToolTip(ProtocolEra era)
{
    switch (era) {
    case ProtocolEra::Auto:
        return tr("Sends server/discover first: a 2026-07-28 answer (or a modern error such as -32022) means modern; "
                  "any other error, or no answer within a short probe, means legacy and initialize follows. The "
                  "era found is saved with the workspace, so the next start skips the probe.");
    case ProtocolEra::Legacy:
        return tr("The 2025-11-25 revision: initialize, a session (Mcp-Session-Id on HTTP), ping and "
                  "logging/setLevel. For servers that predate 2026-07-28; no probe is sent.");
    case ProtocolEra::Modern:
        return tr("The 2026-07-28 revision: no initialize and no session; every request carries the protocol "
                  "version and client capabilities in _meta (and MCP-Protocol-Version, Mcp-Method headers on "
                  "HTTP). No ping and no logging/setLevel. Fails instead of falling back.");
    }
    return {};
}

} // namespace mcpscope
