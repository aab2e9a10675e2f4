#pragma once

// The wire helpers of the bench's dependency-free stdio peers (echopeer, limitspeer): they find keys by
// plain string search in the compact JSON the engine sends, and write whole lines to stdout.

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <unistd.h>

namespace stdiopeer {

// The raw JSON token after "key": a string literal with its quotes and escapes, or a bare number or
// literal. Empty when the key is missing or the token is cut off.
inline std::string_view rawValue(std::string_view line, std::string_view quotedKey)
{
    size_t pos = line.find(quotedKey);
    if (pos == std::string_view::npos)
        return {};
    pos += quotedKey.size();
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == ':'))
        ++pos;
    if (pos >= line.size())
        return {};
    size_t end = pos;
    if (line[pos] == '"') {
        for (++end; end < line.size() && line[end] != '"'; ++end) {
            if (line[end] == '\\')
                ++end;
        }
        if (end >= line.size())
            return {};
        return line.substr(pos, end + 1 - pos);
    }
    while (end < line.size() && line[end] != ',' && line[end] != '}' && line[end] != ' ')
        ++end;
    return line.substr(pos, end - pos);
}

/// Writes all of bytes to stdout; exits quietly when the client went away.
inline void writeAll(std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            std::exit(0);
        }
        bytes.remove_prefix(size_t(n));
    }
}

} // namespace stdiopeer
