// pinLargeBlockThreshold() (issue 17): after a large block is freed, the next large block is still
// mapped on its own, so freeing it gives its memory back to the system at once. Without it, glibc raises
// its mmap threshold to the freed block's size and serves the next one from the heap.

#include "transport/heappolicy.h"

#include <QTest>

#include <cstdlib>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace mcpscope;

class TestHeapPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void largeBlocksStayMappedAfterALargeFree();
};

void TestHeapPolicy::largeBlocksStayMappedAfterALargeFree()
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("a sanitizer's allocator replaces glibc's malloc");
#elif defined(__GLIBC__)
    pinLargeBlockThreshold();
    // A 20 MB answer's text, freed: by default this raises the threshold to 20 MB.
    void* answer = std::malloc(20 * 1000 * 1000);
    QVERIFY(answer);
    std::free(answer);
    const size_t mappedBefore = mallinfo2().hblks;
    void* next = std::malloc(1024 * 1024);
    QVERIFY(next);
    QCOMPARE(mallinfo2().hblks, mappedBefore + 1);
    std::free(next);
    QCOMPARE(mallinfo2().hblks, mappedBefore);
#else
    QSKIP("the threshold is glibc's");
#endif
}

QTEST_GUILESS_MAIN(TestHeapPolicy)
#include "tst_heappolicy.moc"
