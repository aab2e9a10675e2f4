#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Shared by the fuzz targets, which build both with libFuzzer (clang) and with replaymain.cpp (gcc).

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mcpscope::fuzz {

/// A violated property is a finding: abort, so libFuzzer keeps the input and the replay test fails.
inline void check(bool condition, const char* what)
{
    if (!condition) {
        std::fprintf(stderr, "fuzz property violated: %s\n", what);
        std::abort();
    }
}

/// The first byte of an input, or 0 for an empty one, and the rest.
struct Split
{
    quint8 control = 0;
    QByteArrayView rest;
};

inline Split takeControl(const uint8_t* data, size_t size)
{
    if (size == 0)
        return {};
    return { data[0], QByteArrayView(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1)) };
}

/// Cuts bytes into pieces of 1 to 16 bytes chosen by seed, the way reads split a stream anywhere:
/// inside CRLF pairs, UTF-8 sequences and chunk sizes.
inline QList<QByteArrayView> pieces(QByteArrayView bytes, quint8 seed)
{
    QList<QByteArrayView> result;
    quint32 state = seed * 2654435761u + 1;
    qsizetype at = 0;
    while (at < bytes.size()) {
        state = state * 1103515245u + 12345u;
        const qsizetype length = std::min<qsizetype>(bytes.size() - at, 1 + (state >> 16) % 16);
        result.append(bytes.sliced(at, length));
        at += length;
    }
    return result;
}

} // namespace mcpscope::fuzz
