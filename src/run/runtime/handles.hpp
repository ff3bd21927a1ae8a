// The handles a program makes (streams, events, graphs, executable graphs): made by new, kept in
// a set under a mutex while they live, so that a call can tell a live handle from a stale one.
#pragma once

#include <mutex>
#include <set>

namespace gpulab::rt {

template <class Handle>
void keep_handle(std::mutex& mutex, std::set<Handle>& live, Handle h) {
  std::lock_guard lock(mutex);
  live.insert(h);
}
template <class Handle>
bool is_live(std::mutex& mutex, const std::set<Handle>& live, Handle h) {
  std::lock_guard lock(mutex);
  return live.count(h) != 0;
}
// Deletes the handle; false when it is not one of `live`.
template <class Handle>
bool destroy_handle(std::mutex& mutex, std::set<Handle>& live, Handle h) {
  std::lock_guard lock(mutex);
  if (live.erase(h) == 0) return false;
  delete h;
  return true;
}

}  // namespace gpulab::rt
