// The floor of the stdio call-overhead benchmark: the least a client can do per call. It starts
// the echo peer on two pipes, does the initialize handshake, then writes one pre-built
// tools/call line and reads one line, over and over. No JSON, no event loop, blocking syscalls.
//
// Usage: floorclient <echo-peer> <calls> <warm-up calls>
// Prints {"client":"floor","calls":N,"usPerCall":X} on stdout; exits non-zero if a reply is wrong.

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace {

[[noreturn]] void die(const char* what)
{
    std::fprintf(stderr, "floorclient: %s: %s\n", what, std::strerror(errno));
    std::exit(2);
}

class LineReader
{
public:
    explicit LineReader(int fd)
        : m_fd(fd)
    { }

    // The next line without its '\n'; valid until the next call. Empty view at end of stream.
    std::string_view next()
    {
        for (;;) {
            const size_t nl = m_buffer.find('\n', m_start);
            if (nl != std::string::npos) {
                const std::string_view line(m_buffer.data() + m_start, nl - m_start);
                m_start = nl + 1;
                return line;
            }
            m_buffer.erase(0, m_start);
            m_start = 0;
            char chunk[1 << 16];
            const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
            if (n == 0)
                return {};
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                die("read");
            }
            m_buffer.append(chunk, size_t(n));
        }
    }

private:
    int m_fd;
    std::string m_buffer;
    size_t m_start = 0;
};

void writeAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die("write");
        }
        bytes.remove_prefix(size_t(n));
    }
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: floorclient <echo-peer> <calls> <warm-up calls>\n");
        return 2;
    }
    const char* peer = argv[1];
    const long calls = std::strtol(argv[2], nullptr, 10);
    const long warmup = std::strtol(argv[3], nullptr, 10);
    std::signal(SIGPIPE, SIG_IGN);

    int toPeer[2];
    int fromPeer[2];
    if (::pipe(toPeer) != 0 || ::pipe(fromPeer) != 0)
        die("pipe");
    const pid_t pid = ::fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        ::dup2(toPeer[0], STDIN_FILENO);
        ::dup2(fromPeer[1], STDOUT_FILENO);
        ::close(toPeer[0]);
        ::close(toPeer[1]);
        ::close(fromPeer[0]);
        ::close(fromPeer[1]);
        ::execl(peer, peer, static_cast<char*>(nullptr));
        std::fprintf(stderr, "floorclient: cannot run %s: %s\n", peer, std::strerror(errno));
        ::_exit(127);
    }
    ::close(toPeer[0]);
    ::close(fromPeer[1]);
    const int out = toPeer[1];
    LineReader in(fromPeer[0]);

    writeAll(out,
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
        R"("capabilities":{},"clientInfo":{"name":"floorclient","version":"1.0.0"}}})"
        "\n");
    if (in.next().find(R"("protocolVersion":"2025-11-25")") == std::string_view::npos) {
        std::fprintf(stderr, "floorclient: the echo peer did not answer initialize\n");
        return 1;
    }
    writeAll(out,
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
        "\n");

    constexpr std::string_view call
        = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}})"
          "\n";
    constexpr std::string_view expected = R"("text":"hello")";
    auto roundTrips = [&](long count) {
        for (long i = 0; i < count; ++i) {
            writeAll(out, call);
            if (in.next().find(expected) == std::string_view::npos) {
                std::fprintf(stderr, "floorclient: call %ld did not echo \"hello\"\n", i);
                std::exit(1);
            }
        }
    };
    roundTrips(warmup);
    const auto start = std::chrono::steady_clock::now();
    roundTrips(calls);
    const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;

    ::close(out); // EOF ends the peer
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::printf("{\"client\":\"floor\",\"calls\":%ld,\"usPerCall\":%.3f}\n", calls, elapsed.count() / double(calls));
    return 0;
}
