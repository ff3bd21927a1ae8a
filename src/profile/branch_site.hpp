// Where a branch of the source is: the conditional jump that ends a basic block, found in the
// program's disassembly (objdump -d), so that the branch is named at the line of its own
// instruction (the `if`, the loop's condition) rather than where its block starts. No I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpulab::profile {

// The basic-block hook (-fsanitize-coverage=trace-pc) reports a block by the return address of
// its call at the block's start. In `objdump -d --no-show-raw-insn` text, the block runs from that
// address to the next call of the hook; its branch is the last conditional jump in it. Returns
// block address -> the jump's address, for the blocks whose jump was found.
std::map<std::uint64_t, std::uint64_t> branch_instructions(
    const std::string& objdump_text, const std::vector<std::uint64_t>& blocks);

}  // namespace gpulab::profile
