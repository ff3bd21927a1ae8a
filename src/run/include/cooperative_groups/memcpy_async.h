// cooperative_groups/memcpy_async.h for programs built by gpulab run: cg::memcpy_async, cg::wait
// and cg::wait_prior, as CUDA's programming guide uses them to stage global memory in shared
// memory.
//
// The group's threads each copy their share of the bytes when they call memcpy_async (every
// thread of the group calls it with the same arguments, as CUDA requires); cg::wait(group) and
// cg::wait_prior<N>(group) are the group's sync, after which every share has landed.
#pragma once

#include <cstddef>
#include <cstring>
#include <source_location>

#include "../cooperative_groups.h"
#include "simt/device_api.hpp"

namespace cooperative_groups {

// `bytes`: a size in bytes, or a cuda::aligned_size_t.
template <class Group, class Shape>
void memcpy_async(const Group& group, void* dst, const void* src, const Shape& bytes) {
  const auto [begin, end] = gpulab::simt::detail::group_share(static_cast<std::size_t>(bytes),
                                                              group.thread_rank(), group.size());
  std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
}

template <class Group>
void wait(const Group& group, std::source_location where = std::source_location::current()) {
  group.sync(where);
}
template <unsigned NumStages, class Group>
void wait_prior(const Group& group, std::source_location where = std::source_location::current()) {
  group.sync(where);
}

}  // namespace cooperative_groups
