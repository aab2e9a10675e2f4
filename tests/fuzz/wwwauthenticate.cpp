#include "auth/oauthclient.h"
#include "fuzzinput.h"
#include "transport/transportfailure.h"

// The WWW-Authenticate readers: OAuth's Bearer challenge parser and the transport's insufficient_scope check.
using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray header(reinterpret_cast<const char*>(data), qsizetype(size));
    const BearerChallenge challenge = BearerChallenge::parse(header);
    fuzz::check(challenge.isBearer || (challenge.error.isEmpty() && challenge.scope.isEmpty()),
        "only a Bearer challenge has parameters");
    fuzz::check(!challenge.resourceMetadata.isValid() || challenge.isBearer, "only a Bearer challenge has metadata");

    TransportFailure failure;
    failure.event = TransportEvent::HttpStatus;
    failure.httpStatus = 403;
    failure.headers = { { "WWW-Authenticate", header } };
    (void)failure.scopeChallenged();
    return 0;
}
