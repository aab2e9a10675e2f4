#include "auth/keychaintokenstore.h"

#include "auth/tokenstoredelivery.h"

#include <QEventLoop>
#include <QFile>
#include <QLibrary>
#include <QPointer>
#include <QTimer>
#include <QUuid>

#ifdef MCPSCOPE_HAVE_QTDBUS
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusReply>
#endif

#include <qt6keychain/keychain.h>

#include <memory>

namespace mcpscope {

namespace {

template <typename Job> Job* newJob(const QString& key)
{
    // No parent, and deleted only by itself once finished: qtkeychain's libsecret callbacks hold the job's
    // private pointer, so a job deleted while its request is out would be used after it was freed.
    auto* job = new Job(KeychainTokenStore::serviceName());
    job->setAutoDelete(true);
    // Never the plain-text QSettings fallback: a token in a settings file is what the store exists to avoid.
    job->setInsecureFallback(false);
    job->setKey(key);
    return job;
}

/// What the keychain said, in words; qtkeychain's messages name no values.
QString detailOf(const QKeychain::Job* job)
{
    const QString said = job->errorString().isEmpty() ? KeychainTokenStore::tr("no details") : job->errorString();
    switch (job->error()) {
    case QKeychain::AccessDeniedByUser:
        return KeychainTokenStore::tr("access was refused (%1)").arg(said);
    case QKeychain::AccessDenied:
        return KeychainTokenStore::tr("access was denied, the keyring may be locked (%1)").arg(said);
    case QKeychain::NoBackendAvailable:
        return KeychainTokenStore::tr("no keychain service is available (%1)").arg(said);
    default:
        return said;
    }
}

/// What an entry is for, from its key (keys are not secret; values are).
QString purposeOf(const QString& key)
{
    if (key.startsWith(QLatin1String("oauth/"))) {
        const QString rest = key.mid(6);
        const qsizetype bar = rest.indexOf(QLatin1Char('|'));
        if (bar < 0)
            return KeychainTokenStore::tr("the OAuth tokens for %1").arg(rest);
        return KeychainTokenStore::tr("the OAuth tokens for %1 from %2").arg(rest.mid(bar + 1), rest.left(bar));
    }
    if (key.startsWith(QLatin1String("client/")))
        return KeychainTokenStore::tr("the client credentials of server '%1'").arg(key.mid(7));
    return KeychainTokenStore::tr("the entry '%1'").arg(key);
}

} // namespace

QString KeychainTokenStore::serviceName()
{
    return QStringLiteral("McpScope");
}

QString KeychainTokenStore::keychainName()
{
#if defined(Q_OS_MACOS) || defined(Q_OS_IOS)
    return tr("the macOS Keychain");
#elif defined(Q_OS_WIN)
    return tr("the Windows Credential Manager");
#else
    return tr("the Secret Service");
#endif
}

QString KeychainTokenStore::detectDescription()
{
    const QString name = keychainName();
#ifdef MCPSCOPE_HAVE_QTDBUS
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected() || !bus.interface())
        return name;
    const QDBusReply<uint> pid = bus.interface()->servicePid(QStringLiteral("org.freedesktop.secrets"));
    if (!pid.isValid())
        return name;
    QFile comm(QStringLiteral("/proc/%1/comm").arg(pid.value()));
    if (!comm.open(QIODevice::ReadOnly))
        return name;
    const QString program = QString::fromLocal8Bit(comm.readAll()).trimmed();
    // comm is cut at 15 bytes: "gnome-keyring-daemon" reads "gnome-keyring-d".
    if (program.startsWith(QLatin1String("gnome-keyring")))
        return tr("%1 (GNOME Keyring)").arg(name);
    if (program.startsWith(QLatin1String("kwalletd")) || program.startsWith(QLatin1String("ksecretd")))
        return tr("%1 (KWallet)").arg(name);
    if (program.startsWith(QLatin1String("keepassxc"), Qt::CaseInsensitive))
        return tr("%1 (KeePassXC)").arg(name);
    if (!program.isEmpty())
        return tr("%1 (%2)").arg(name, program);
#endif
    return name;
}

bool KeychainTokenStore::probe(int timeoutMs, QString* why)
{
    const QString name = keychainName();
    const QString key = QStringLiteral("probe/") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    // Binary on purpose: a keychain that only keeps text would fail the round trip here, not later.
    const QByteArray value = QUuid::createUuid().toRfc4122() + QByteArray("\0\xff\x01 probe", 9);

    QEventLoop loop;
    // Every handler hangs off scope, so a job that answers after the deadline finds nobody to tell.
    auto scope = std::make_unique<QObject>();
    QObject* const context = scope.get();
    bool answered = false;
    bool passed = false;
    bool timedOut = false;
    QString failed;
    const auto finish = [&](bool ok, const QString& text) {
        if (answered)
            return;
        answered = true;
        passed = ok;
        failed = text;
        loop.quit();
    };

    auto* write = newJob<QKeychain::WritePasswordJob>(key);
    write->setBinaryData(value);
    QObject::connect(write, &QKeychain::Job::finished, context, [&, context](QKeychain::Job* written) {
        if (written->error() != QKeychain::NoError)
            return finish(false, tr("%1 could not save a test entry: %2").arg(name, detailOf(written)));
        auto* read = newJob<QKeychain::ReadPasswordJob>(key);
        QObject::connect(read, &QKeychain::Job::finished, context, [&, context](QKeychain::Job* job) {
            QString readFailure;
            if (job->error() != QKeychain::NoError)
                readFailure = tr("%1 could not read back a test entry: %2").arg(name, detailOf(job));
            else if (static_cast<QKeychain::ReadPasswordJob*>(job)->binaryData() != value)
                readFailure = tr("%1 gave back other bytes than it was given for a test entry").arg(name);
            auto* remove = newJob<QKeychain::DeletePasswordJob>(key);
            QObject::connect(remove, &QKeychain::Job::finished, context, [&, readFailure](QKeychain::Job* removed) {
                if (!readFailure.isEmpty())
                    return finish(false, readFailure);
                if (removed->error() != QKeychain::NoError)
                    return finish(false, tr("%1 could not delete a test entry: %2").arg(name, detailOf(removed)));
                finish(true, QString());
            });
            remove->start();
        });
        read->start();
    });
    QTimer::singleShot(timeoutMs, context, [&] {
        timedOut = true;
        finish(false, tr("%1 did not answer within %2 ms").arg(name).arg(timeoutMs));
    });
    write->start();
    if (!answered)
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    scope.reset();
    if (timedOut) {
        // Queued behind the job that hangs: should the keychain wake up, the probe leaves nothing behind.
        newJob<QKeychain::DeletePasswordJob>(key)->start();
    }
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    // qtkeychain opens libsecret at run time and no package depends on it; without it every job fails with
    // "Unknown error", which tells nobody what to install. (Same name and version as qtkeychain's own
    // QLibrary, so this shares its handle rather than loading anything else.)
    if (!passed && !QLibrary(QStringLiteral("secret-1"), 0).load())
        failed
            = tr("%1; libsecret (libsecret-1.so.0) is not installed, on Debian the libsecret-1-0 package").arg(failed);
#endif
    if (why)
        *why = failed;
    return passed;
}

KeychainTokenStore::KeychainTokenStore(const QString& description, QObject* parent)
    : TokenStore(parent)
    , m_description(description)
{ }

QString KeychainTokenStore::description() const
{
    return m_description;
}

QString KeychainTokenStore::failure(const QString& action, const QString& key, const QKeychain::Job* job) const
{
    return tr("%1 could not %2 %3: %4").arg(m_description, action, purposeOf(key), detailOf(job));
}

void KeychainTokenStore::read(const QString& key, QObject* context, ReadDone done)
{
    auto* job = newJob<QKeychain::ReadPasswordJob>(key);
    QPointer<QObject> target(context);
    const bool hasContext = context != nullptr;
    connect(job, &QKeychain::Job::finished, this,
        [this, key, target, hasContext, done = std::move(done)](QKeychain::Job* finished) {
            const QKeychain::Error error = finished->error();
            const bool found = error == QKeychain::NoError;
            const QByteArray value
                = found ? static_cast<QKeychain::ReadPasswordJob*>(finished)->binaryData() : QByteArray();
            const QString message
                = found || error == QKeychain::EntryNotFound ? QString() : failure(tr("read"), key, finished);
            if (!done) {
                if (!message.isEmpty())
                    Q_EMIT problem(message);
                return;
            }
            if (hasContext && !target)
                return;
            TokenStoreDelivery::post(
                this, target.data(), [done, found, value, message] { done(found, value, message); });
        });
    job->start();
}

void KeychainTokenStore::write(const QString& key, const QByteArray& value, QObject* context, WriteDone done)
{
    auto* job = newJob<QKeychain::WritePasswordJob>(key);
    job->setBinaryData(value);
    finishWrite(job, key, context, std::move(done), tr("save"), false);
}

void KeychainTokenStore::remove(const QString& key, QObject* context, WriteDone done)
{
    // qtkeychain reports removing an entry that is not there as success on the Secret Service and as
    // EntryNotFound elsewhere; either way the entry is gone, which is what the caller asked for.
    finishWrite(newJob<QKeychain::DeletePasswordJob>(key), key, context, std::move(done), tr("remove"), true);
}

void KeychainTokenStore::finishWrite(
    QKeychain::Job* job, const QString& key, QObject* context, WriteDone done, const QString& action, bool missingIsOk)
{
    QPointer<QObject> target(context);
    const bool hasContext = context != nullptr;
    connect(job, &QKeychain::Job::finished, this,
        [this, key, target, hasContext, action, missingIsOk, done = std::move(done)](QKeychain::Job* finished) {
            const QKeychain::Error error = finished->error();
            const bool ok = error == QKeychain::NoError || (missingIsOk && error == QKeychain::EntryNotFound);
            const QString message = ok ? QString() : failure(action, key, finished);
            if (!done) {
                if (!ok)
                    Q_EMIT problem(message);
                return;
            }
            if (hasContext && !target)
                return;
            TokenStoreDelivery::post(this, target.data(), [done, ok, message] { done(ok, message); });
        });
    job->start();
}

} // namespace mcpscope
