#pragma once

// The environment of a GUI test binary, set before QApplication exists: headless unless QT_QPA_PLATFORM
// says otherwise, and settings (XDG_CONFIG_HOME) and each workspace's call log (MCPSCOPE_LOG_DIR) in a
// scratch directory, so a run never sees or changes the user's own settings or reads an earlier run's calls.

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QtGlobal>

namespace mcpscope::test {

/// The scratch directory for this test binary's settings and call logs.
inline QTemporaryDir& scratchConfigDir()
{
    static QTemporaryDir dir;
    return dir;
}

/// Use at namespace scope: [[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();
inline bool useScratchGuiEnvironment()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(scratchConfigDir().path()));
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(scratchConfigDir().path() + QStringLiteral("/logs")));
    return true;
}

/// In initTestCase, once the application exists: QSettings (native and INI) under the scratch directory, for
/// an organization and application of the test's own.
inline void useScratchSettings(const QString& application)
{
    QCoreApplication::setOrganizationName(QStringLiteral("McpScopeTest"));
    QCoreApplication::setApplicationName(application);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratchConfigDir().path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, scratchConfigDir().path());
}

} // namespace mcpscope::test
