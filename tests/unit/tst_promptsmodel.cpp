#include "models/promptsmodel.h"
#include "models/promptsmodeldefs.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using mcpscope::PromptsModel;
namespace PromptsModelRole = mcpscope::PromptsModelRole;

namespace {
QJsonObject prompt(const QString& name, const QJsonArray& arguments = {})
{
    return { { QStringLiteral("name"), name },
        { QStringLiteral("description"), QString(name + QStringLiteral(" text")) },
        { QStringLiteral("arguments"), arguments } };
}
QJsonObject argument(const QString& name, bool required)
{
    return { { QStringLiteral("name"), name }, { QStringLiteral("required"), required } };
}
} // namespace

class TestPromptsModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listsPromptsWithTheirRequiredArguments();
    void sameNamesUpdateInPlaceOtherwiseReset();
};

void TestPromptsModel::listsPromptsWithTheirRequiredArguments()
{
    PromptsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPrompts({ prompt(QStringLiteral("simple-prompt")),
        prompt(QStringLiteral("args-prompt"),
            { argument(QStringLiteral("city"), true), argument(QStringLiteral("state"), false) }),
        QJsonObject { { QStringLiteral("description"), QStringLiteral("no name: skipped") } } });
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1).data().toString(), QStringLiteral("args-prompt"));
    QCOMPARE(model.index(1).data(PromptsModelRole::RequiredCountRole).toInt(), 1);
    QCOMPARE(model.index(1).data(PromptsModelRole::ArgumentsRole).toJsonArray().size(), 2);
    QCOMPARE(model.index(0).data(PromptsModelRole::RequiredCountRole).toInt(), 0);
    QCOMPARE(model.index(0).data(PromptsModelRole::DescriptionRole).toString(), QStringLiteral("simple-prompt text"));
    QCOMPARE(model.rowOf(QStringLiteral("args-prompt")), 1);
    QCOMPARE(model.rowOf(QStringLiteral("missing")), -1);
}

void TestPromptsModel::sameNamesUpdateInPlaceOtherwiseReset()
{
    PromptsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPrompts({ prompt(QStringLiteral("a")), prompt(QStringLiteral("b")) });
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setPrompts(
        { prompt(QStringLiteral("a"), { argument(QStringLiteral("x"), true) }), prompt(QStringLiteral("b")) });
    QCOMPARE(changed.size(), 1);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(model.index(0).data(PromptsModelRole::RequiredCountRole).toInt(), 1);
    model.setPrompts({ prompt(QStringLiteral("b")) });
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

QTEST_GUILESS_MAIN(TestPromptsModel)
#include "tst_promptsmodel.moc"
