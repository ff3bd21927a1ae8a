// Findings in words (see findings.hpp).
#include "run/findings.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "run/report.hpp"

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;
namespace kinds = run::report::kind;

namespace {

std::string who(const json& f, const char* block_key, const char* thread_key, Lang l) {
  return say(l, "block {} thread {}", "线程块 {} 线程 {}", dims_text(f.value(block_key, json())),
             dims_text(f.value(thread_key, json())));
}

std::string region_text(const json& f, Lang l) {
  const std::string region = f.value("region", "");
  const auto bytes = f.value("region_bytes", std::uint64_t{0});
  if (region == "allocation") {
    const std::string site = f.value("region_site", "");
    return say(l, "the {}-byte allocation made at {}", "在 {1} 分配的 {0} 字节显存", bytes,
               site.empty() ? "?" : site);
  }
  return say(l, "__device__ variable {} ({} bytes)", "__device__ 变量 {}（{} 字节）", region,
             bytes);
}

// "wrote" or "read": the access a finding's facts describe.
std::string access_verb(const json& x, Lang l) {
  return std::string(x.value("write", false) ? tr(l, "wrote", "写入") : tr(l, "read", "读取"));
}

// A finding compute-sanitizer made on the GPU: the facts it printed, in the emulator's words.
std::string describe_sanitizer_finding(const RunFinding& f, Lang l) {
  const json& x = f.facts;
  const std::string tool = x.value("tool", "");
  const std::string kernel = x.value("kernel", "?");
  const std::string did = access_verb(x, l);
  const auto hits = x.value("hits", std::uint64_t{1});
  const std::string times =
      hits > 1 ? say(l, " ({} reports like it)", "（同类报告 {} 次）", hits) : std::string();
  const std::string by = say(l, "compute-sanitizer {}", "compute-sanitizer {}", tool);
  const std::string space = x.value("space", "");
  if (f.kind == "out_of_bounds" || f.kind == "misaligned_access" ||
      f.kind == "uninitialized_read") {
    std::string how;
    if (x.contains("offset")) {
      const auto offset = x.value("offset", std::int64_t{0});
      how = offset < 0 ? say(l, ", {} bytes before an allocation of {} bytes",
                             "，在一块 {1} 字节的显存之前 {0} 字节", -offset,
                             x.value("region_bytes", std::uint64_t{0}))
                       : say(l, " at byte {} of an allocation of {} bytes, past its end",
                             "，位于一块 {1} 字节的显存的第 {0} 字节，已越过末尾", offset,
                             x.value("region_bytes", std::uint64_t{0}));
    } else if (x.contains("address_is")) {
      how = ": " + x.value("address_is", "");
    }
    return say(l, "{}: kernel {}, {} {} {} bytes of {} memory{}{} ({}).",
               "{}：核函数 {}，{} {} {} 字节的{}内存{}{}（{}）。", finding_title(f.kind, l), kernel,
               who(x, "block", "thread", l), did, x.value("bytes", std::uint64_t{0}),
               space.empty() ? "?" : space, how, times, by);
  }
  if (f.kind == "shared_race") {
    return say(l,
               "race on shared memory in kernel {}: a {} at {} and a {} at {} with no "
               "__syncthreads() between them{} ({}). The usual fix: a __syncthreads() between "
               "the write and the read.",
               "核函数 {0} 中共享内存上的竞争：{2} 处的{1}与 {4} 处的{3}之间没有 "
               "__syncthreads(){5}（{6}）。常见的修正：在写和读之间加 __syncthreads()。",
               kernel, x.value("write", false) ? tr(l, "write", "写") : tr(l, "read", "读"),
               f.where.empty() ? "?" : f.where,
               x.value("other_write", false) ? tr(l, "write", "写") : tr(l, "read", "读"),
               f.other_where.empty() ? "?" : f.other_where, times, by);
  }
  if (f.kind == "leak") {
    return say(l, "{} bytes of device memory were never freed (cudaFree) ({}).",
               "{} 字节的显存没有释放（cudaFree）（{}）。", x.value("bytes", std::uint64_t{0}), by);
  }
  if (f.kind == "uninitialized_copy") {
    return say(l,
               "{} copied back {} bytes of device memory that no one wrote "
               "(elements no thread was given?) ({}{}).",
               "{} 拷回的 {} 字节显存从未被写入（有元素没有线程负责？）（{}{}）。",
               x.value("api", "cudaMemcpy"), x.value("copied", std::uint64_t{0}), by, times);
  }
  if (f.kind == "host_memory") {
    return say(l,
               "host memory used in a kernel: kernel {}, {} {} {} bytes at an address far from "
               "every device allocation{} ({}): copy the data with cudaMemcpy and pass the device "
               "pointer.",
               "核函数使用了主机内存：核函数 {}，{} {} {} 字节，地址远离所有设备分配{}（{}）：请用 "
               "cudaMemcpy 复制数据，并传设备指针。",
               kernel, who(x, "block", "thread", l), did, x.value("bytes", std::uint64_t{0}), times,
               by);
  }
  if (f.kind == "launch_error") {
    return say(l, "{} failed: {} ({}).", "{} 失败：{}（{}）。", x.value("api", ""),
               x.value("error", ""), by);
  }
  return fmt::format("{}: {} ({}){}", finding_title(f.kind, l),
                     escape_controls(x.value("message", "")), by, times);
}

}  // namespace

namespace {

// The emulator's own words for a fault or a race, in both languages (message, message_zh).
std::string emulator_message(const json& x, Lang l) {
  return l == Lang::zh && x.contains("message_zh") ? x.value("message_zh", "")
                                                   : x.value("message", "");
}

// The fix a shared-memory race calls for: one writer where both wrote, else an order between the
// write and the read; between two lanes of one warp that order is __syncwarp().
std::string shared_race_fix(const json& x, Lang l) {
  const bool same_warp = x.value("same_warp", false);
  const bool both_wrote = x.value("write", false) && x.value("other_write", false);
  std::string text =
      same_warp ? std::string(tr(l,
                                 ". Both threads are in one warp: since Volta only __syncwarp() "
                                 "orders them, though a GPU whose warp happens to run in step "
                                 "hides the race",
                                 "。两个线程在同一个线程束内：自 Volta 起只有 __syncwarp() 能排定"
                                 "它们的先后，只是线程束恰好齐步执行的 GPU 会掩盖这个竞争"))
                : std::string();
  const std::string_view order = same_warp ? "__syncwarp()" : "__syncthreads()";
  text += both_wrote
              ? say(l, ". The usual fix: let one thread write it, or a {} between the writes.",
                    "。常见的修正：只让一个线程写，或在两次写之间加 {}。", order)
              : say(l, ". The usual fix: a {} between the write and the read.",
                    "。常见的修正：在写和读之间加 {}。", order);
  return text;
}

}  // namespace

std::string describe_finding(const RunFinding& f, Lang l) {
  if (f.facts.contains("tool")) return describe_sanitizer_finding(f, l);
  const json& x = f.facts;
  const std::string k = f.kind;
  const std::string kernel = x.value("kernel", "");
  const std::string did = access_verb(x, l);
  const auto hits = x.value("hits", std::uint64_t{1});
  const std::string times =
      hits > 1 ? say(l, " ({} accesses like it)", "（同类访问 {} 次）", hits) : std::string();
  if (k == kinds::out_of_bounds) {
    const auto offset = x.value("offset", std::int64_t{0});
    const auto size = static_cast<std::int64_t>(x.value("region_bytes", std::uint64_t{0}));
    const std::string how =
        offset < 0 ? say(l, ", {} bytes before its start", "，在起点之前 {} 字节", -offset)
                   : say(l, " at byte {}, past its end (it has {} bytes)",
                         "的第 {} 字节，已越过末尾（共 {} 字节）", offset, size);
    return say(l,
               "out of bounds: kernel {}, {} {} {} bytes of {}{}{}. The usual fix: "
               "guard the index (if (i < n)).",
               "越界访问：核函数 {}，{} {} {} "
               "字节，位置是{}{}{}。常见的修正：检查下标（if (i < n)）。",
               kernel, who(x, "block", "thread", l), did, x.value("bytes", 0u), region_text(x, l),
               how, times);
  }
  if (k == kinds::host_memory) {
    return say(l,
               "host memory used in a kernel: kernel {}, {} {} {} bytes at an address no "
               "cudaMalloc returned (a malloc/new/stack pointer passed to the kernel){}. On a "
               "GPU this faults (cudaErrorIllegalAddress) on most systems: copy the data with "
               "cudaMemcpy and pass the device pointer.",
               "核函数使用了主机内存：核函数 {}，{} {} {} 字节，地址不是 cudaMalloc 返回的"
               "（传给核函数的是 malloc/new/栈上的指针）{}。在大多数系统的 GPU 上这会出错"
               "（cudaErrorIllegalAddress）：请用 cudaMemcpy 复制数据，并传设备指针。",
               kernel, who(x, "block", "thread", l), did, x.value("bytes", 0u), times);
  }
  if (k == kinds::uninitialized_read) {
    return say(l,
               "read of memory never written: kernel {}, {} read {} bytes at byte {} of {}{}; "
               "no cudaMemcpy, cudaMemset or kernel had put data there.",
               "读取了从未写入的显存：核函数 {0}，{1} 读取 {2} 字节，位于{4}的第 {3} 字节{5}；"
               "此前没有 cudaMemcpy、cudaMemset 或核函数写过这里。",
               kernel, who(x, "block", "thread", l), x.value("bytes", 0u),
               x.value("offset", std::int64_t{0}), region_text(x, l), times);
  }
  if (k == kinds::uninitialized_copy) {
    return say(l,
               "cudaMemcpy copied {} bytes back from the {}-byte allocation made at {}, and {} "
               "of them were never written (the first at byte {}): elements no thread wrote?",
               "cudaMemcpy 从 {1} 字节的显存（在 {2} 分配）拷回 {0} 字节，其中 {3} 字节从未写入"
               "（第一个在第 {4} 字节）：有元素没有线程负责？",
               x.value("copied", std::uint64_t{0}), x.value("allocation_bytes", std::uint64_t{0}),
               x.value("allocation_site", ""), x.value("bytes", std::uint64_t{0}),
               x.value("first_offset", std::uint64_t{0}));
  }
  if (k == kinds::global_race) {
    const bool other_write = x.value("other_write", false);
    return say(
        l,
        "race on global memory ({} at byte {}): {} {} at {}, then {} {} with nothing "
        "ordering the two{}. {}",
        "全局内存上的竞争（{0}，第 {1} 字节）：{2} 在 {4} {3}，随后 {5} {6}，两者之间没有任何"
        "同步{7}。{8}",
        region_text(x, l), x.value("offset", std::int64_t{0}),
        who(x, "other_block", "other_thread", l),
        other_write ? tr(l, "wrote", "写入") : tr(l, "read", "读取"),
        f.other_where.empty() ? "?" : f.other_where, who(x, "block", "thread", l), did, times,
        x.value("other_block", json()) == x.value("block", json())
            ? std::string(
                  tr(l,
                     "Threads of one block are ordered only by __syncthreads(): put one "
                     "between the two accesses, or let one thread do the work.",
                     "同一线程块内的线程只靠 __syncthreads() 排定先后：在两次访问之间加一个，"
                     "或只让一个线程做这件事。"))
            : std::string(
                  tr(l,
                     "Blocks of one launch are never ordered: use atomics, or split the "
                     "work into two kernels.",
                     "同一次启动中的线程块之间没有先后顺序：请使用原子操作，或拆成两个核函数。")));
  }
  if (k == kinds::shared_race) {
    return std::string(tr(l, "race on shared memory: ", "共享内存上的竞争：")) +
           emulator_message(x, l) +
           (f.other_where.empty() ? "" : fmt::format(" ({} / {})", f.other_where, f.where)) +
           shared_race_fix(x, l);
  }
  if (k == kinds::kernel_fault) {
    return std::string(tr(l, "kernel fault: ", "核函数错误：")) + emulator_message(x, l);
  }
  if (k == kinds::leak) {
    return say(l, "{} bytes allocated with {} at {} were never freed (cudaFree){}",
               "在 {2} 用 {1} 分配的 {0} 字节{3}没有释放（cudaFree）",
               x.value("bytes", std::uint64_t{0}), x.value("allocator", ""), x.value("site", ""),
               x.value("when", "") == "exit"
                   ? std::string()
                   : std::string(tr(l, " before cudaDeviceReset()", "在 cudaDeviceReset() 之前")));
  }
  if (k == kinds::unsynchronized_exit) {
    return say(l,
               "the program ended without waiting for its last kernel ({}, launched at {}): "
               "launches return at once, so call cudaDeviceSynchronize() (or copy the result "
               "back) before main() ends; {} bytes of kernel printf were never printed.",
               "程序结束前没有等待最后一个核函数（{}，启动于 {}）：启动会立即返回，所以在 main() "
               "结束前要调用 cudaDeviceSynchronize()（或把结果拷回）；有 {} 字节的核函数 printf "
               "输出从未打印。",
               kernel, x.value("site", ""), x.value("lost_printf_bytes", std::uint64_t{0}));
  }
  if (k == kinds::unchecked_launch_error) {
    return say(l,
               "the launch of {} at {} failed ({}) and the program never asked: check "
               "cudaGetLastError() right after a launch.",
               "{} 在 {} 的启动失败了（{}），而程序从未检查：启动后应立即检查 cudaGetLastError()。",
               kernel, x.value("site", ""), x.value("error", ""));
  }
  return x.dump();
}

std::string finding_title(const std::string& kind, Lang l) {
  static const std::map<std::string, std::pair<const char*, const char*>> titles = {
      {kinds::out_of_bounds, {"out of bounds", "越界"}},
      {kinds::host_memory, {"host memory in a kernel", "核函数使用主机内存"}},
      {kinds::uninitialized_read, {"uninitialized read", "读取未初始化的显存"}},
      {kinds::uninitialized_copy, {"uninitialized data copied back", "拷回了未写入的数据"}},
      {kinds::global_race, {"race on global memory", "全局内存竞争"}},
      {kinds::shared_race, {"race on shared memory", "共享内存竞争"}},
      {kinds::kernel_fault, {"kernel fault", "核函数错误"}},
      {kinds::leak, {"memory leak", "显存泄漏"}},
      {kinds::unsynchronized_exit, {"no wait before exit", "退出前未同步"}},
      {kinds::unchecked_launch_error, {"unchecked launch error", "未检查的启动错误"}},
      {kinds::misaligned_access, {"misaligned access", "未对齐的访问"}},
      {kinds::launch_error, {"launch error", "启动错误"}},
  };
  const auto it = titles.find(kind);
  if (it == titles.end()) return kind;
  return std::string(tr(l, it->second.first, it->second.second));
}

}  // namespace gpulab
