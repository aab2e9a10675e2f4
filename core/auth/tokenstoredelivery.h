#pragma once

#include <QMetaObject>
#include <QObject>

#include <utility>

// Internal to core/auth: how every TokenStore hands a result back.

namespace mcpscope::TokenStoreDelivery {

/// Runs fn on the thread of context (the store when context is null), always after the current call
/// returned. Qt drops the queued call when that object is destroyed first.
template <typename Fn> void post(QObject* store, QObject* context, Fn&& fn)
{
    QMetaObject::invokeMethod(context ? context : store, std::forward<Fn>(fn), Qt::QueuedConnection);
}

} // namespace mcpscope::TokenStoreDelivery
