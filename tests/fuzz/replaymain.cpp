#include "fuzzinput.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

// Replays a fuzz target over every file of the directories it is given (corpus, regressions), without
// libFuzzer: a property the target checks aborts, and a sanitizer build reports what it sees.
int main(int argc, char** argv)
{
    int replayed = 0;
    for (int i = 1; i < argc; ++i) {
        const QDir dir(QFile::decodeName(argv[i]));
        if (!dir.exists())
            continue; // a target without regressions yet
        const QFileInfoList files = dir.entryInfoList(QDir::Files, QDir::Name);
        for (const QFileInfo& info : files) {
            QFile file(info.filePath());
            if (!file.open(QIODevice::ReadOnly)) {
                std::fprintf(stderr, "cannot read %s\n", qPrintable(info.filePath()));
                return 1;
            }
            const QByteArray bytes = file.readAll();
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size()));
            ++replayed;
        }
    }
    std::printf("replayed %d inputs\n", replayed);
    // An empty or missing corpus would pass without testing anything.
    return replayed > 0 ? 0 : 1;
}
