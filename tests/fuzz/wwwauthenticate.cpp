#include "auth/oauthclient.h"
#include "fuzzinput.h"
#include "transport/transportfailure.h"

// The WWW-Authenticate readers: OAuth's Bearer and DPoP challenge parser and the transport's
// insufficient_scope check.
using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray header(reinterpret_cast<const char*>(data), qsizetype(size));
    const BearerChallenge challenge = BearerChallenge::parse(header);
    // Parameters come from a Bearer or a DPoP challenge (RFC 9449 §7.1 gives DPoP the same error, scope and
    // resource_metadata), algs from DPoP only; any other scheme's are not read.
    const bool known = challenge.isBearer || challenge.isDpop;
    fuzz::check(known || (challenge.error.isEmpty() && challenge.scope.isEmpty()),
        "only a Bearer or DPoP challenge has parameters");
    fuzz::check(!challenge.resourceMetadata.isValid() || known, "only a Bearer or DPoP challenge has metadata");
    fuzz::check(challenge.dpopAlgs.isEmpty() || challenge.isDpop, "only a DPoP challenge has algs");

    TransportFailure failure;
    failure.event = TransportEvent::HttpStatus;
    failure.httpStatus = 403;
    failure.headers = { { "WWW-Authenticate", header } };
    (void)failure.scopeChallenged();
    return 0;
}
