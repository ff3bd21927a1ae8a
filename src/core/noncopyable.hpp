// A base for a class that owns something it must not share: a copy (or a move) of it would
// release the thing twice. Derive privately: `class SignalGuard : NonCopyable`.
#pragma once

namespace gpulab {

class NonCopyable {
 public:
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;

 protected:
  NonCopyable() = default;
  ~NonCopyable() = default;
};

}  // namespace gpulab
