// gpulab's error hierarchy: caught once, in main, which turns each kind into its exit code.
#pragma once

#include <stdexcept>
#include <string>

#include "core/i18n.hpp"

namespace gpulab {

// Base of every error gpulab reports itself: one line, without the "gpulab: error: ", in both
// languages. There is no English-only constructor on purpose: a message without its Chinese twin
// does not compile (tests/i18n also checks what the user sees). what() is the English text.
class Error : public std::runtime_error {
 public:
  explicit Error(Text text) : std::runtime_error(text.en), zh_(std::move(text.zh)) {}
  Error(std::string en, std::string zh) : Error(Text{std::move(en), std::move(zh)}) {}
  // The message in the language the user chose.
  std::string message(Lang lang) const { return lang == Lang::zh ? zh_ : std::string(what()); }

 private:
  std::string zh_;
};

// A bad option or value: exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// Something failed while running (GPU error, out of memory, emulator fault): exit code 1.
class RuntimeFailure : public Error {
 public:
  using Error::Error;
};

// A CUDA call that failed, named by its error name (cudaErrorInvalidConfiguration, ...).
class CudaError : public RuntimeFailure {
 public:
  CudaError(std::string error_name, Text message)
      : RuntimeFailure(std::move(message)), error_name_(std::move(error_name)) {}
  const std::string& error_name() const { return error_name_; }

 private:
  std::string error_name_;
};

// Not an error: an exception that unwinds to main() carrying one number, which main() turns into
// the process's exit status.
class Unwind : public std::exception {
 public:
  Unwind(int value, const char* what) : value_(value), what_(what) {}
  const char* what() const noexcept override { return what_; }

 protected:
  int value_;

 private:
  const char* what_;
};

// A command that has said all it had to say and exits with this code (gpulab run passes on the
// program's own exit code). main() returns it without a message.
class ExitCode : public Unwind {
 public:
  explicit ExitCode(int code) : Unwind(code, "exit") {}
  int code() const { return value_; }
};

// gpulab received SIGINT, SIGTERM or SIGHUP (core/process.hpp: SignalGuard), ended what it had
// started and unwinds so that temporary files go; main() exits with 128 + signal.
class Interrupted : public Unwind {
 public:
  explicit Interrupted(int signal) : Unwind(signal, "interrupted") {}
  int signal() const { return value_; }
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

}  // namespace gpulab
