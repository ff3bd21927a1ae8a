// cg::plus, less, greater, bit_and, bit_or, bit_xor: the operators of cg::reduce and the scans
// (nvcc: <cooperative_groups/reduce.h>, scan.h).
#pragma once

#include <source_location>
#include <type_traits>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

}  // namespace cooperative_groups
