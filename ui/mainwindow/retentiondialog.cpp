#include "retentiondialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace mcpscope {

RetentionDialog::RetentionDialog(int maxAgeDays, int maxMegabytes, const QString& logPath, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Call Log Retention"));
    auto* form = new QFormLayout(this);
    auto* explanation = new QLabel(tr("Finished calls older than the age limit, and the oldest calls while the log "
                                      "is larger than the size limit, are removed. 0 turns a limit off. Nothing "
                                      "else is ever removed."),
        this);
    explanation->setWordWrap(true);
    form->addRow(explanation);
    m_days = new QSpinBox(this);
    m_days->setRange(0, 3650);
    m_days->setSuffix(tr(" days"));
    m_days->setSpecialValueText(tr("no age limit"));
    m_days->setValue(maxAgeDays);
    m_megabytes = new QSpinBox(this);
    m_megabytes->setRange(0, 1024 * 1024);
    m_megabytes->setSuffix(tr(" MB"));
    m_megabytes->setSpecialValueText(tr("no size limit"));
    m_megabytes->setValue(maxMegabytes);
    form->addRow(tr("Keep calls for:"), m_days);
    form->addRow(tr("Keep the log under:"), m_megabytes);
    form->addRow(new QLabel(tr("Log file: %1").arg(logPath.isEmpty() ? tr("none") : logPath), this));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

int RetentionDialog::maxAgeDays() const
{
    return m_days->value();
}

int RetentionDialog::maxMegabytes() const
{
    return m_megabytes->value();
}

} // namespace mcpscope
