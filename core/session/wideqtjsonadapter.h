#pragma once

// A valijson adapter over QJsonValue that reads integers as 64-bit values. valijson's own
// QtJsonAdapter goes through QJsonValue::toInt(), so every whole number outside 32 bits fails
// `type: integer` and reads as 0 in integer constraints: a millisecond timestamp or a 64-bit id
// would be reported as not an integer. Only schemavalidator.cpp includes this.

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

#include <valijson/exceptions.hpp>
#include <valijson/internal/adapter.hpp>
#include <valijson/internal/basic_adapter.hpp>
#include <valijson/internal/frozen_value.hpp>

#include <cmath>
#include <string>
#include <utility>

namespace mcpscope::valijsonadapter {

class WideQtJsonAdapter;
using WideQtJsonObjectMember = std::pair<std::string, WideQtJsonAdapter>;

class WideQtJsonArrayIterator
{
public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = WideQtJsonAdapter;
    using difference_type = std::ptrdiff_t;
    using pointer = WideQtJsonAdapter*;
    using reference = WideQtJsonAdapter&;

    explicit WideQtJsonArrayIterator(QJsonArray::const_iterator it)
        : m_it(it)
    { }
    WideQtJsonAdapter operator*() const;
    valijson::adapters::DerefProxy<WideQtJsonAdapter> operator->() const;
    bool operator==(const WideQtJsonArrayIterator& other) const { return m_it == other.m_it; }
    bool operator!=(const WideQtJsonArrayIterator& other) const { return m_it != other.m_it; }
    const WideQtJsonArrayIterator& operator++()
    {
        ++m_it;
        return *this;
    }
    WideQtJsonArrayIterator operator++(int)
    {
        WideQtJsonArrayIterator before = *this;
        ++m_it;
        return before;
    }
    const WideQtJsonArrayIterator& operator--()
    {
        --m_it;
        return *this;
    }
    void advance(std::ptrdiff_t n) { m_it += n; }

private:
    QJsonArray::const_iterator m_it;
};

class WideQtJsonObjectIterator
{
public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = WideQtJsonObjectMember;
    using difference_type = std::ptrdiff_t;
    using pointer = WideQtJsonObjectMember*;
    using reference = WideQtJsonObjectMember&;

    explicit WideQtJsonObjectIterator(QJsonObject::const_iterator it)
        : m_it(it)
    { }
    WideQtJsonObjectMember operator*() const;
    valijson::adapters::DerefProxy<WideQtJsonObjectMember> operator->() const;
    bool operator==(const WideQtJsonObjectIterator& other) const { return m_it == other.m_it; }
    bool operator!=(const WideQtJsonObjectIterator& other) const { return m_it != other.m_it; }
    const WideQtJsonObjectIterator& operator++()
    {
        ++m_it;
        return *this;
    }
    WideQtJsonObjectIterator operator++(int)
    {
        WideQtJsonObjectIterator before = *this;
        ++m_it;
        return before;
    }

private:
    QJsonObject::const_iterator m_it;
};

class WideQtJsonArray
{
public:
    using const_iterator = WideQtJsonArrayIterator;
    using iterator = WideQtJsonArrayIterator;

    WideQtJsonArray() = default;
    explicit WideQtJsonArray(const QJsonValue& value)
        : m_array(value.toArray())
    {
        if (!value.isArray())
            valijson::throwRuntimeError("Value is not an array.");
    }
    WideQtJsonArrayIterator begin() const { return WideQtJsonArrayIterator(m_array.begin()); }
    WideQtJsonArrayIterator end() const { return WideQtJsonArrayIterator(m_array.end()); }
    size_t size() const { return size_t(m_array.size()); }

private:
    QJsonArray m_array;
};

class WideQtJsonObject
{
public:
    using const_iterator = WideQtJsonObjectIterator;
    using iterator = WideQtJsonObjectIterator;

    WideQtJsonObject() = default;
    explicit WideQtJsonObject(const QJsonValue& value)
        : m_object(value.toObject())
    {
        if (!value.isObject())
            valijson::throwRuntimeError("Value is not an object.");
    }
    WideQtJsonObjectIterator begin() const { return WideQtJsonObjectIterator(m_object.begin()); }
    WideQtJsonObjectIterator end() const { return WideQtJsonObjectIterator(m_object.end()); }
    WideQtJsonObjectIterator find(const std::string& name) const
    {
        return WideQtJsonObjectIterator(m_object.constFind(QString::fromStdString(name)));
    }
    size_t size() const { return size_t(m_object.size()); }

private:
    QJsonObject m_object;
};

class WideQtJsonFrozenValue final : public valijson::adapters::FrozenValue
{
public:
    explicit WideQtJsonFrozenValue(QJsonValue value)
        : m_value(std::move(value))
    { }
    FrozenValue* clone() const override { return new WideQtJsonFrozenValue(m_value); }
    bool equalTo(const valijson::adapters::Adapter& other, bool strict) const override;

private:
    QJsonValue m_value;
};

class WideQtJsonValue
{
public:
    WideQtJsonValue() = default;
    WideQtJsonValue(QJsonValue value)
        : m_value(std::move(value))
    { }

    valijson::adapters::FrozenValue* freeze() const { return new WideQtJsonFrozenValue(m_value); }

    ::opt::optional<WideQtJsonArray> getArrayOptional() const
    {
        if (m_value.isArray())
            return ::opt::make_optional(WideQtJsonArray(m_value));
        return {};
    }
    bool getArraySize(size_t& result) const
    {
        if (!m_value.isArray())
            return false;
        result = size_t(m_value.toArray().size());
        return true;
    }
    bool getBool(bool& result) const
    {
        if (!m_value.isBool())
            return false;
        result = m_value.toBool();
        return true;
    }
    bool getDouble(double& result) const
    {
        if (!m_value.isDouble())
            return false;
        result = m_value.toDouble();
        return true;
    }
    bool getInteger(int64_t& result) const
    {
        if (!isInteger())
            return false;
        result = m_value.toInteger();
        return true;
    }
    ::opt::optional<WideQtJsonObject> getObjectOptional() const
    {
        if (m_value.isObject())
            return ::opt::make_optional(WideQtJsonObject(m_value));
        return {};
    }
    bool getObjectSize(size_t& result) const
    {
        if (!m_value.isObject())
            return false;
        result = size_t(m_value.toObject().size());
        return true;
    }
    bool getString(std::string& result) const
    {
        if (!m_value.isString())
            return false;
        result = m_value.toString().toStdString();
        return true;
    }
    static bool hasStrictTypes() { return true; }
    bool isArray() const { return m_value.isArray(); }
    bool isBool() const { return m_value.isBool(); }
    bool isDouble() const { return m_value.isDouble(); }
    bool isInteger() const
    {
        // toInteger() answers for values Qt stores as qint64; a whole double within ±2^63 is one too.
        if (!m_value.isDouble())
            return false;
        const double d = m_value.toDouble();
        return std::isfinite(d) && std::trunc(d) == d && std::abs(d) < 9.2e18;
    }
    bool isNull() const { return m_value.isNull(); }
    bool isNumber() const { return m_value.isDouble(); }
    bool isObject() const { return m_value.isObject(); }
    bool isString() const { return m_value.isString(); }

private:
    QJsonValue m_value = QJsonValue(QJsonObject());
};

class WideQtJsonAdapter : public valijson::adapters::BasicAdapter<WideQtJsonAdapter, WideQtJsonArray,
                              WideQtJsonObjectMember, WideQtJsonObject, WideQtJsonValue>
{
public:
    WideQtJsonAdapter() = default;
    WideQtJsonAdapter(const QJsonValue& value)
        : BasicAdapter(value)
    { }
};

inline WideQtJsonAdapter WideQtJsonArrayIterator::operator*() const
{
    return WideQtJsonAdapter(*m_it);
}

inline valijson::adapters::DerefProxy<WideQtJsonAdapter> WideQtJsonArrayIterator::operator->() const
{
    return valijson::adapters::DerefProxy<WideQtJsonAdapter>(**this);
}

inline WideQtJsonObjectMember WideQtJsonObjectIterator::operator*() const
{
    return WideQtJsonObjectMember(m_it.key().toStdString(), WideQtJsonAdapter(m_it.value()));
}

inline valijson::adapters::DerefProxy<WideQtJsonObjectMember> WideQtJsonObjectIterator::operator->() const
{
    return valijson::adapters::DerefProxy<WideQtJsonObjectMember>(**this);
}

inline bool WideQtJsonFrozenValue::equalTo(const valijson::adapters::Adapter& other, bool strict) const
{
    return WideQtJsonAdapter(m_value).equalTo(other, strict);
}

} // namespace mcpscope::valijsonadapter

template <> struct valijson::adapters::AdapterTraits<mcpscope::valijsonadapter::WideQtJsonAdapter>
{
    using DocumentType = QJsonValue;
    static std::string adapterName() { return "WideQtJsonAdapter"; }
};
