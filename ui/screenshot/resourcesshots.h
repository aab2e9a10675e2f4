#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace mcpscope {

class MainWindow;

/// `make screenshot`'s Resources tab: resources-text.png (a server-everything document read, subscribed,
/// with its updates in the history) and resources-image.png (the PNG of tests/peers/image-resources.mjs,
/// the workspace's "image-resources" server). done() after both were written, failed(why) otherwise.
class ResourcesShots : public QObject
{
    Q_OBJECT
public:
    using Save = std::function<void(QWidget*, const QString&)>;
    ResourcesShots(MainWindow* window, Save save, QObject* parent = nullptr);
    void start();

Q_SIGNALS:
    void done();
    void failed(const QString& why);

private:
    void waitUntil(std::function<bool()> condition, std::function<void()> then, const QString& what);
    void textShot();
    void imageShot();

    QPointer<MainWindow> m_window;
    Save m_save;
};

} // namespace mcpscope
