// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace rdmastat {

/// The one fatal error type. `main` catches it and prints `rdmastat: <what()>`,
/// so the message reads "context: reason" without a trailing newline.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
    Error(const std::string& context, const std::string& reason)
        : std::runtime_error(context + ": " + reason) {}
};

/// Context and reason of a recoverable failure.
struct Failure {
    std::string message;
    int code = 0; ///< errno when the failure came from a system call, else 0
};

/// A value or a Failure; recoverable errors are returned, not thrown.
template <typename T> class Result {
  public:
    Result(T value) : v_(std::move(value)) {}
    Result(Failure failure) : v_(std::move(failure)) {}

    bool ok() const { return std::holds_alternative<T>(v_); }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<T>(v_); }
    const T& value() const { return std::get<T>(v_); }
    const std::string& error() const { return std::get<Failure>(v_).message; }
    int error_code() const { return std::get<Failure>(v_).code; }
    const Failure& failure() const { return std::get<Failure>(v_); }
    /// The value, or throws Error with the failure's message.
    T take() {
        if (!ok()) throw Error(error());
        return std::move(value());
    }

  private:
    std::variant<T, Failure> v_;
};

} // namespace rdmastat

namespace rdmastat {
/// Result of an operation that yields nothing but may fail.
struct Ok {};
using Status = Result<Ok>;
} // namespace rdmastat
