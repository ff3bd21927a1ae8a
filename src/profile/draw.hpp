// Terminal drawings of one warp-level access: the lanes over 32-byte sectors (global memory) or
// over the 32 banks (shared memory). Plain text, one lane per character (0-9, then a-v for
// lanes 10-31), so that a student sees why a request costs what it costs.
#pragma once

#include <string>

#include "core/output.hpp"
#include "profile/counting.hpp"

namespace gpulab::profile {

// The lane's character: '0'-'9', then 'a'-'v'.
char lane_char(unsigned lane);

// One row per 128-byte segment that the warp touched (at most `max_rows`, then a line saying how
// many more), 32 columns of 4-byte words, '|' between the four 32-byte sectors, '.' for a word
// of a touched sector that no lane asked for, ' ' for a sector that was not fetched.
std::string draw_sectors(const WarpAccess& a, unsigned max_rows, Lang l);

// One column per bank (0-31); row k holds the lanes served in the k-th wavefront of that bank's
// part of the request (whole warp, half-warp or quarter-warp), at most `max_rows` rows.
std::string draw_banks(const WarpAccess& a, unsigned max_rows, Lang l);

}  // namespace gpulab::profile
