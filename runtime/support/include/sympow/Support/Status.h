//===- Status.h - Error reporting without exceptions ------------*- C++ -*-===//
//
// The runtime is built with -fno-exceptions, so every fallible function
// returns a Status (or a Result<T>) whose message names the problem.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_STATUS_H
#define SYMPOW_SUPPORT_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace sympow {

/// Success, or an error with a human-readable message.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.text = std::move(message);
    return s;
  }

  bool isOk() const { return !failed; }
  bool isError() const { return failed; }
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

/// A value of type T, or an error Status.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : val(std::move(value)) {}
  /// Only error statuses may be converted; a success without a value is a
  /// programming error and is turned into an error rather than a crash.
  Result(Status status)
      : err(status.isError()
                ? std::move(status)
                : Status::error("internal error: Result built from success")) {}

  bool isOk() const { return val.has_value(); }
  bool isError() const { return !val.has_value(); }
  const std::string &message() const { return err.message(); }
  Status status() const { return isOk() ? Status::success() : err; }

  T &value() { return *val; }
  const T &value() const { return *val; }
  T *operator->() { return &*val; }
  const T *operator->() const { return &*val; }

private:
  std::optional<T> val;
  Status err;
};

} // namespace sympow

#endif // SYMPOW_SUPPORT_STATUS_H
