// The conditional jump that ends a basic block, found in objdump's text (profile/branch_site.hpp).
#include <catch2/catch.hpp>

#include "profile/branch_site.hpp"

using gpulab::profile::branch_instructions;

namespace {

// objdump -d --no-show-raw-insn of an `if` inside a loop, cut to the lines that matter.
const char* kText = R"(
prog:     file format elf64-x86-64


Disassembly of section .text:

0000000000401a20 <_Z6reducePKfPf>:
  401a20:	push   %rbx
  401a21:	call   401000 <__sanitizer_cov_trace_pc>
  401a26:	mov    %edi,%eax
  401a28:	call   402000 <__tsan_read4>
  401a2d:	ucomiss %xmm1,%xmm0
  401a30:	jp     401a50 <_Z6reducePKfPf+0x30>
  401a32:	jne    401a50 <_Z6reducePKfPf+0x30>
  401a34:	call   401000 <__sanitizer_cov_trace_pc>
  401a39:	mov    %eax,(%rdx)
  401a3b:	jmp    401a60 <_Z6reducePKfPf+0x40>
  401a50:	call   401000 <__sanitizer_cov_trace_pc>
  401a55:	cmp    $0x7,%eax
  401a58:	bnd jbe    401a26 <_Z6reducePKfPf+0x6>
  401a5a:	call   401000 <__sanitizer_cov_trace_pc>
  401a5f:	ret
)";

}  // namespace

TEST_CASE("branch site: the last conditional jump before the next block's hook", "[profile]") {
  const auto found = branch_instructions(kText, {0x401a26, 0x401a39, 0x401a55, 0x401a5f, 0x401a27});
  // The float comparison's two jumps (jp, jne) are one branch: the last one names it.
  CHECK(found.at(0x401a26) == 0x401a32);
  // A block that ends in an unconditional jump has no branch.
  CHECK(found.count(0x401a39) == 0);
  // A loop's condition, with objdump's `bnd` prefix.
  CHECK(found.at(0x401a55) == 0x401a58);
  CHECK(found.count(0x401a5f) == 0);
  // An address that starts no instruction in the text is not guessed at.
  CHECK(found.count(0x401a27) == 0);
  CHECK(found.size() == 2);
}
