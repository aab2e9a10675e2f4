#pragma once

#include <QDialog>

class QSpinBox;

namespace mcpscope {

/// File › Call Log Retention: the age and size limits of the workspace's call log (0 turns a limit off).
class RetentionDialog : public QDialog
{
    Q_OBJECT
public:
    /// logPath is the open call log's file, or empty when none is open.
    RetentionDialog(int maxAgeDays, int maxMegabytes, const QString& logPath, QWidget* parent = nullptr);

    int maxAgeDays() const;
    int maxMegabytes() const;

private:
    QSpinBox* m_days = nullptr;
    QSpinBox* m_megabytes = nullptr;
};

} // namespace mcpscope
