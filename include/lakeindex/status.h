// Status and Result<T>: the error model of every public API (no exceptions cross it).
//
// A Status is OK or carries a code and a one-line message that names the file, offset, row or
// column it is about, and, when the error is about an argument the caller gave, that parameter's
// name (Status::parameter): each front end names it in its own words (`--select` on the command
// line, `select` in Python). Result<T> holds either a value or a non-OK Status.
// Thread safety: values; safe to copy between threads.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace lakeindex {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument = 1,
  kNotFound = 2,
  kCorruption = 3,
  kIOError = 4,
  kNotSupported = 5,
  kConflict = 6,
  kAlreadyExists = 7,  // create-if-absent lost the race; commit logic turns it into a retry
  kInternal = 8,
  // A write whose answer was lost and whose effect could not be learned afterwards: it may or
  // may not have happened (a commit: the version may be there). Never reported when the outcome
  // is known either way.
  kOutcomeUnknown = 9,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status Conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status OutcomeUnknown(std::string m) { return {StatusCode::kOutcomeUnknown, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool IsInvalidArgument() const { return code_ == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsCorruption() const { return code_ == StatusCode::kCorruption; }
  bool IsIOError() const { return code_ == StatusCode::kIOError; }
  bool IsNotSupported() const { return code_ == StatusCode::kNotSupported; }
  bool IsConflict() const { return code_ == StatusCode::kConflict; }
  bool IsAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }
  bool IsOutcomeUnknown() const { return code_ == StatusCode::kOutcomeUnknown; }

  // The argument the error is about, by its library name (the Python keyword: "select",
  // "order_by", "aggregates", "sample", "rows_per_file", ...), or empty.
  // The message then does not name it: front ends put their own word for it first
  // (MessageNaming).
  const std::string& parameter() const { return parameter_; }
  // A copy about `parameter` (see parameter()).
  Status About(std::string parameter) const {
    Status out = *this;
    out.parameter_ = std::move(parameter);
    return out;
  }
  // The message, after "<name>: " when the error is about a parameter, `name` being what the
  // caller's front end calls it (e.g. "--select").
  std::string MessageNaming(std::string_view name) const {
    return parameter_.empty() ? message_ : std::string(name) + ": " + message_;
  }

  // "Corruption: <message>" ("Invalid argument: <parameter>: <message>" when about one), or "OK".
  std::string ToString() const;
  // Returns a copy whose message is "<context>: <message>" (same code and parameter).
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string parameter_;
};

const char* StatusCodeName(StatusCode code);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  // REQUIRES: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

namespace internal {
inline Status ToStatus(const Status& s) { return s; }
template <typename T>
Status ToStatus(const Result<T>& r) { return r.status(); }
}  // namespace internal

}  // namespace lakeindex

#define LAKEINDEX_CONCAT_IMPL(a, b) a##b
#define LAKEINDEX_CONCAT(a, b) LAKEINDEX_CONCAT_IMPL(a, b)

#define RETURN_IF_ERROR(expr)                                             \
  do {                                                                    \
    ::lakeindex::Status _st = ::lakeindex::internal::ToStatus((expr));    \
    if (!_st.ok()) return _st;                                            \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                          \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL(LAKEINDEX_CONCAT(_result_, __LINE__), lhs, rexpr)
