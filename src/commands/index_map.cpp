// gpulab index-map (see index_map.hpp).
#include "commands/index_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {
namespace {

constexpr std::uint64_t kFullTableUpTo = 64;      // --show auto lists every thread up to this
constexpr std::uint64_t kJsonThreadsUpTo = 4096;  // JSON lists every thread up to this
constexpr std::uint64_t kShowAllUpTo = 1u << 20;  // --show all refuses more
constexpr std::uint64_t kRunUpTo = 1u << 22;      // --run: 32 bytes of records per thread

std::string coord(const calc::Coord& c, int rank) {
  if (rank <= 1) return std::to_string(c.x);
  if (rank == 2) return fmt::format("({},{})", c.x, c.y);
  return fmt::format("({},{},{})", c.x, c.y, c.z);
}

std::string shape_text(const calc::Shape& s, int rank) {
  if (rank <= 1) return std::to_string(s.x);
  if (rank == 2) return fmt::format("{}x{}", s.x, s.y);
  return fmt::format("{}x{}x{}", s.x, s.y, s.z);
}

}  // namespace

IndexMapResult run_index_map(const IndexMapOptions& o, Backend* backend) {
  IndexMapResult r;
  r.grid = o.grid;
  r.block = o.block;
  r.rank = o.rank;
  r.launch = calc::launch_facts(o.grid, o.block);
  r.total_overflows =
      __builtin_mul_overflow(r.launch.blocks, r.launch.threads_per_block, &r.total_threads);
  r.total_approx =
      static_cast<double>(r.launch.blocks) * static_cast<double>(r.launch.threads_per_block);
  const std::uint64_t total = r.total_overflows ? UINT64_MAX : r.total_threads;

  r.all_threads = !r.total_overflows &&
                  (total <= kJsonThreadsUpTo || (o.show == ShowMode::all && total <= kShowAllUpTo));
  if (r.all_threads) {
    for (std::uint64_t i = 0; i < total; ++i) {
      r.threads.push_back(calc::place_of_index(o.grid, o.block, i));
    }
  }
  if (o.find) r.found = calc::place_of_index(o.grid, o.block, *o.find);
  r.example = r.found ? *r.found : calc::place_of_index(o.grid, o.block, total - 1);

  const bool full =
      o.show == ShowMode::all || (o.show == ShowMode::automatic && total <= kFullTableUpTo);
  if (full && r.all_threads) {
    r.table = r.threads;
  } else if (o.show != ShowMode::none) {
    std::set<std::uint64_t> keep;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(4, total); ++i) keep.insert(i);
    for (std::uint64_t i = total - std::min<std::uint64_t>(4, total); i < total; ++i)
      keep.insert(i);
    if (o.find) {
      const std::uint64_t f = *o.find;
      for (std::uint64_t i = f >= 2 ? f - 2 : 0; i <= std::min(total - 1, f + 2); ++i)
        keep.insert(i);
    }
    for (auto i : keep) r.table.push_back(calc::place_of_index(o.grid, o.block, i));
    r.elided = true;
  } else {
    r.elided = true;
  }

  if (o.run && backend != nullptr) {
    IndexMapRun run;
    const auto words = static_cast<std::size_t>(total) * 8;
    require_memory(*backend, words * sizeof(unsigned), "index-map --run");
    std::vector<unsigned> records(words, 0xFFFFFFFFu);  // poison: an unwritten record shows
    DeviceBuffer<unsigned> d(*backend, words);
    backend->to_device(d.get(), records.data(), d.bytes());
    run.run = backend->write_indices({o.grid, o.block, 0}, d.get());
    backend->to_host(records.data(), d.get(), d.bytes());
    for (std::uint64_t g = 0; g < total; ++g) {
      const calc::ThreadPlace want = calc::place_of_index(o.grid, o.block, g);
      const unsigned* rec = &records[g * 8];
      const bool ok = rec[0] == want.block.x && rec[1] == want.block.y && rec[2] == want.block.z &&
                      rec[3] == want.thread.x && rec[4] == want.thread.y &&
                      rec[5] == want.thread.z && rec[6] == want.global && rec[7] == want.warp;
      ++run.checked;
      if (!ok) {
        if (run.mismatches == 0) {
          run.first_mismatch = fmt::format(
              "thread {}: the kernel wrote block ({},{},{}) thread ({},{},{}) global {} warp {}", g,
              rec[0], rec[1], rec[2], rec[3], rec[4], rec[5], rec[6], rec[7]);
        }
        ++run.mismatches;
      }
    }
    run.backend = std::string(backend_name(backend->kind()));
    run.device = backend->device_name();
    r.run = std::move(run);
  }
  return r;
}

namespace {

// A grid too large to draw whole: its first blocks and its last, each box a block with the global
// indices of its first and last threads, "..." for the blocks between, and a legend.
std::string draw_summary(const IndexMapResult& r, const Style& st, Lang l) {
  if (r.total_overflows) {
    return std::string(tr(l, "  (the grid is too large to draw: its indices overflow 64 bits)\n",
                          "  （网格太大，无法绘制：索引超出 64 位）\n"));
  }
  const std::uint64_t blocks = r.grid.volume(), per_block = r.block.volume();
  std::vector<std::uint64_t> shown;
  for (std::uint64_t b = 0; b < std::min<std::uint64_t>(blocks, 2); ++b) shown.push_back(b);
  if (blocks > 2) shown.push_back(blocks - 1);
  auto range = [&](std::uint64_t b) {
    return fmt::format("{} .. {}", group_thousands(b * per_block),
                       group_thousands((b + 1) * per_block - 1));
  };
  std::size_t inner = 0;
  for (std::uint64_t b : shown) inner = std::max(inner, display_width(range(b)) + 2);
  const bool gap = blocks > 3;  // blocks between the second and the last, not drawn
  // Narrow terminals get the first block and the last only.
  if (shown.size() == 3 && 2 + 3 * (inner + 3) + (gap ? 5 : 0) > st.width()) {
    shown.erase(shown.begin() + 1);
  }
  std::string label, top, middle;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const bool dots = i + 1 == shown.size() && shown[i] > shown[i - (i > 0 ? 1 : 0)] + 1;
    if (dots) {
      label += "     ";
      top += "     ";
      middle += "  ...";
    }
    label += "  " + pad_right(fmt::format("block {}", group_thousands(shown[i])), inner + 2);
    top += "  +" + std::string(inner, '-') + "+";
    middle += "  | " + pad_right(range(shown[i]), inner - 1) + "|";
  }
  std::string out = st.bold(label) + "\n" + top + "\n" + middle + "\n" + top + "\n";
  const std::string block_is = count_noun(l, per_block, "thread", "threads", "个线程");
  out += say(l,
             "  Each box is a block of {}, with the global indices of its first and "
             "last thread.\n",
             "  每个方框是一个线程块（{}），框里是它第一个和最后一个线程的全局索引。\n", block_is);
  if (shown.size() < blocks) {
    const std::uint64_t from = shown.size() == 3 ? 2 : 1, to = blocks - 2;
    out += say(l, "  ... stands for blocks {} to {} ({}), not drawn.\n",
               "  ... 代表线程块 {} 到 {}（{}），没有画出。\n", group_thousands(from),
               group_thousands(to), count_noun(l, to - from + 1, "block", "blocks", "个线程块"));
  }
  if (r.rank >= 2) {
    out +=
        std::string(tr(l, "  Blocks are numbered as CUDA counts them: x first, then y, then z.\n",
                       "  线程块按 CUDA 的顺序编号：先 x，再 y，再 z。\n"));
  }
  return out;
}

// The grid of blocks, each block drawn with its threads' global indices; x to the right, y down.
std::string draw_grid(const IndexMapResult& r, const Style& st, Lang l) {
  const auto& g = r.grid;
  const auto& b = r.block;
  const std::uint64_t highlight = r.found ? r.found->global : UINT64_MAX;
  // Threads are drawn when a row of blocks is small enough to read, and one block's box fits the
  // terminal ("  +" ... "+" around them).
  const std::size_t box = b.x * (std::to_string(r.total_threads).size() + 1) + 4;
  const bool cells = g.x <= 8 && g.y <= 8 && g.z <= 4 && b.x <= 16 && b.y <= 16 && b.z == 1 &&
                     !r.total_overflows && g.x * box <= 120 && box + 1 <= st.width();
  if (!cells) {
    if (g.x > 16 || g.y > 16 || g.z > 4) return draw_summary(r, st, l);
  }
  std::string out;
  const std::size_t w = cells ? std::to_string(r.total_threads - 1).size() : 0;
  const std::size_t inner = cells ? b.x * (w + 1) + 1 : std::to_string(g.volume()).size() + 2;
  // As many boxes side by side as the terminal has room for; the rest of a row of blocks goes
  // below, each box still named by its block.
  const std::uint64_t per_band = std::max<std::uint64_t>(1, st.width() / (inner + 4));
  for (std::uint64_t z = 0; z < g.z; ++z) {
    if (g.z > 1) out += fmt::format("  blockIdx.z = {}\n", z);
    for (std::uint64_t y = 0; y < g.y; ++y) {
      for (std::uint64_t x0 = 0; x0 < g.x; x0 += per_band) {
        const std::uint64_t x1 = std::min(g.x, x0 + per_band);
        std::string label, top;
        for (std::uint64_t x = x0; x < x1; ++x) {
          std::string name =
              cells ? fmt::format("block ({},{})", x, y) : fmt::format("({},{})", x, y);
          label += "  " + pad_right(name, inner + 2);
          top += "  +" + std::string(inner, '-') + "+";
        }
        out += st.dim(label) + "\n" + top + "\n";
        const std::uint64_t rows = cells ? b.y : 1;
        for (std::uint64_t ty = 0; ty < rows; ++ty) {
          std::string line;
          for (std::uint64_t x = x0; x < x1; ++x) {
            line += "  |";
            if (cells) {
              for (std::uint64_t tx = 0; tx < b.x; ++tx) {
                const auto p = calc::place_of(g, b, {x, y, z}, {tx, ty, 0});
                std::string v = pad_left(std::to_string(p.global), w);
                line += ' ';  // appended piece by piece: GCC 12 warns wrongly on " " + v
                line += p.global == highlight ? st.accent(v) : v;
              }
              line += " |";
            } else {
              const auto p = calc::place_of(g, b, {x, y, z}, {0, 0, 0});
              line += ' ';
              line += pad_left(std::to_string(p.block_linear), inner - 2);
              line += " |";
            }
          }
          out += line + "\n";
        }
        out += top + "\n";
      }
    }
  }
  out += std::string(
      cells
          ? tr(l, "  x grows to the right, y downwards; each number is a thread's global index.\n",
               "  x 向右增长，y 向下增长；每个数字是一个线程的全局索引。\n")
          : tr(l,
               "  x grows to the right, y downwards; each box is a block, numbered as CUDA counts "
               "blocks.\n",
               "  x 向右增长，y 向下增长；每个方框是一个线程块，编号即 CUDA 的线程块序号。\n"));
  return out;
}

std::string formulas(const IndexMapResult& r, const Style& st, Lang l) {
  const auto& p = r.example;
  const auto& g = r.grid;
  const auto& b = r.block;
  std::string s;
  s += st.bold(say(l, "  Worked for block {}, thread {}:", "  以线程块 {}、线程 {} 为例：",
                   coord(p.block, 3), coord(p.thread, 3))) +
       "\n";
  // The formulas' own names follow the language, as the table's columns do (CUDA's stay).
  const std::string global(tr(l, "global", "全局")), block(tr(l, "block", "线程块号")),
      thread(tr(l, "thread", "线程号")), warp(tr(l, "warp", "线程束")), lane(tr(l, "lane", "通道"));
  const std::size_t name_width = std::max(
      {display_width(global), display_width(block), display_width(thread), display_width(warp)});
  auto name = [name_width](const std::string& n) { return pad_right(n, name_width); };
  const std::string under(name_width + 4, ' ');  // "    " + the name: "= ..." goes on under it
  if (r.rank == 1) {
    s += fmt::format("    {} = blockIdx.x * blockDim.x + threadIdx.x = {} * {} + {} = {}\n",
                     name(global), p.block.x, b.x, p.thread.x, st.accent(std::to_string(p.global)));
  } else {
    s += fmt::format(
        "    {} = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y\n"
        "{} = {} + {} * {} + {} * {} * {} = {}\n",
        name(block), under, p.block.x, p.block.y, g.x, p.block.z, g.x, g.y, p.block_linear);
    s += fmt::format(
        "    {} = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * "
        "blockDim.y\n"
        "{} = {} + {} * {} + {} * {} * {} = {}\n",
        name(thread), under, p.thread.x, p.thread.y, b.x, p.thread.z, b.x, b.y, p.thread_linear);
    s += fmt::format(
        "    {} = {} * (blockDim.x * blockDim.y * blockDim.z) + {} = {} * ({} * {} * "
        "{}) + {} = {}\n",
        name(global), block, thread, p.block_linear, b.x, b.y, b.z, p.thread_linear,
        st.accent(std::to_string(p.global)));
    if (r.rank == 2) {
      const auto pos = calc::grid_position(b, p.block, p.thread);
      s += say(l,
               "    In the {} x {} plane of all threads it sits at column x = "
               "blockIdx.x * blockDim.x + threadIdx.x\n"
               "    = {} * {} + {} = {} and row y = blockIdx.y * blockDim.y + "
               "threadIdx.y = {} * {} + {} = {}.\n"
               "    (Image kernels number threads row by row over that plane "
               "instead: y * {} + x = {}.)\n",
               "    在所有线程组成的 {} x {} 平面中，它位于列 x = blockIdx.x * "
               "blockDim.x + threadIdx.x\n"
               "    = {} * {} + {} = {}，行 y = blockIdx.y * blockDim.y + "
               "threadIdx.y = {} * {} + {} = {}。\n"
               "    （图像类核函数常按整个平面逐行编号：y * {} + x = {}。）\n",
               g.x * b.x, g.y * b.y, p.block.x, b.x, p.thread.x, pos.x, p.block.y, b.y, p.thread.y,
               pos.y, g.x * b.x, pos.y * g.x * b.x + pos.x);
    }
  }
  s += fmt::format("    {} = {} / 32 = {} / 32 = {}{}{} = {} % 32 = {}\n", name(warp), thread,
                   p.thread_linear, p.warp, tr(l, ", ", "，"), lane, p.thread_linear, p.lane);
  return s;
}

// The columns of the thread table: the CUDA names stay, the words follow the language.
std::array<std::string, 6> table_header(Lang l) {
  return {std::string(tr(l, "global", "全局")),
          "blockIdx",
          "threadIdx",
          std::string(tr(l, "block#", "线程块号")),
          std::string(tr(l, "thread#", "线程号")),
          std::string(tr(l, "warp", "线程束"))};
}

// The full table of --show all, written a chunk of rows at a time: a million rows would take
// over a gigabyte as a Table of cells, for 56 MB of text. Aligned exactly as Table aligns it.
void stream_table(const IndexMapResult& r, const Style& st, Lang l,
                  const std::function<void(std::string_view)>& write) {
  using Cells = std::array<std::string, 6>;
  const Cells header = table_header(l);
  auto cells = [&](const calc::ThreadPlace& p) {
    return Cells{std::to_string(p.global),        coord(p.block, r.rank),
                 coord(p.thread, r.rank),         std::to_string(p.block_linear),
                 std::to_string(p.thread_linear), std::to_string(p.warp)};
  };
  // Coordinates are numbers in 1-D and "(x,y)" otherwise: right- or left-aligned as Table does.
  const std::array<bool, 6> numeric = {true, r.rank <= 1, r.rank <= 1, true, true, true};
  std::array<std::size_t, 6> width{};
  for (std::size_t c = 0; c < 6; ++c) width[c] = display_width(header[c]);
  for (const auto& p : r.table) {
    const Cells row = cells(p);
    for (std::size_t c = 0; c < 6; ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const Cells& row) {
    std::string out = "  ";
    for (std::size_t c = 0; c < 6; ++c) {
      out += numeric[c] ? pad_left(row[c], width[c]) : pad_right(row[c], width[c]);
      if (c + 1 < 6) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  std::string chunk = st.bold(line(header)) + "\n";
  for (const auto& p : r.table) {
    const std::string text = line(cells(p));
    chunk += r.found && p.global == r.found->global ? st.accent(text) : text;
    chunk += '\n';
    if (chunk.size() >= (1u << 16)) {
      write(chunk);
      chunk.clear();
    }
  }
  write(chunk);
}

}  // namespace

std::string render_index_map(const IndexMapResult& r, const OutputOptions& out) {
  std::string text;
  render_index_map_to(r, out, [&](std::string_view piece) { text += piece; });
  return text;
}

void render_index_map_to(const IndexMapResult& r, const OutputOptions& out,
                         const std::function<void(std::string_view)>& write) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  std::string s;
  s += st.heading(say(l, "Thread indices of <<<{}, {}>>>", "<<<{}, {}>>> 的线程索引",
                      shape_text(r.grid, r.rank), shape_text(r.block, r.rank))) +
       "\n";
  const std::string total = r.total_overflows
                                ? say(l, "about {:.3e} threads", "约 {:.3e} 个线程", r.total_approx)
                                : count_noun(l, r.total_threads, "thread", "threads", "个线程");
  s += say(l,
           "  gridDim = ({}, {}, {}), blockDim = ({}, {}, {}): "
           "{} x {} = {}\n",
           "  gridDim = ({}, {}, {})，blockDim = ({}, {}, "
           "{})：{} x {} = {}\n",
           r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z,
           count_noun(l, r.launch.blocks, "block", "blocks", "个线程块"),
           count_noun(l, r.launch.threads_per_block, "thread", "threads", "个线程"), total);
  const bool one_warp = r.launch.warps_per_block == 1;
  const std::string idle =
      count_noun(l, r.launch.idle_lanes_per_block, "idle lane", "idle lanes", "个空闲通道");
  s += say(l, "  Each block is {} of 32 consecutive threads{}.\n\n",
           "  每个线程块是 {}（每个由 32 个连续线程组成）{}。\n\n",
           count_noun(l, r.launch.warps_per_block, "warp", "warps", "个线程束"),
           r.launch.idle_lanes_per_block > 0
               ? (one_warp ? say(l, "; it has {}", "；它有 {}", idle)
                           : say(l, "; the last has {}", "；最后一个有 {}", idle))
               : std::string());
  if (!r.table.empty() && !r.elided && r.table.size() > kFullTableUpTo) {
    write(s);
    s.clear();
    stream_table(r, st, l, write);
    s += "\n";
  } else if (!r.table.empty()) {
    const auto header = table_header(l);
    Table t(std::vector<std::string>(header.begin(), header.end()));
    long highlight = -1;
    std::uint64_t previous = UINT64_MAX;
    for (const auto& p : r.table) {
      if (previous != UINT64_MAX && p.global != previous + 1) t.add_ellipsis();
      if (r.found && p.global == r.found->global) highlight = static_cast<long>(t.rows());
      t.add_row({std::to_string(p.global), coord(p.block, r.rank), coord(p.thread, r.rank),
                 std::to_string(p.block_linear), std::to_string(p.thread_linear),
                 std::to_string(p.warp)});
      previous = p.global;
    }
    if (r.elided && !r.total_overflows && previous + 1 != r.total_threads) t.add_ellipsis();
    s += t.render(st, 2, highlight) + "\n";
  }
  if (r.rank >= 2 || (r.grid.x <= 8 && r.block.x <= 16)) {
    s += draw_grid(r, st, l) + "\n";
  } else {
    s += draw_summary(r, st, l) + "\n";
  }
  s += formulas(r, st, l);
  if (r.found) {
    const auto& f = *r.found;
    s += "\n" +
         st.bold(say(l, "  Element {} is handled by block {}, thread {}:",
                     "  元素 {} 由线程块 {}、线程 {} 处理：", f.global, coord(f.block, r.rank),
                     coord(f.thread, r.rank))) +
         "\n";
    s += say(l, "    {} / {} threads per block = block {}, remainder thread {}\n",
             "    {} / 每块 {} 个线程 = 线程块 {}，余数为线程 {}\n", f.global,
             r.launch.threads_per_block, f.block_linear, f.thread_linear);
    if (r.rank >= 2) {
      s += fmt::format(
          "    {} {} -> blockIdx = ({} % {}, {} / {} % {}, {} / ({} * {})) = ({}, {}, {})\n",
          tr(l, "block", "线程块"), f.block_linear, f.block_linear, r.grid.x, f.block_linear,
          r.grid.x, r.grid.y, f.block_linear, r.grid.x, r.grid.y, f.block.x, f.block.y, f.block.z);
      s += fmt::format(
          "    {} {} -> threadIdx = ({} % {}, {} / {} % {}, {} / ({} * {})) = ({}, {}, {})\n",
          tr(l, "thread", "线程"), f.thread_linear, f.thread_linear, r.block.x, f.thread_linear,
          r.block.x, r.block.y, f.thread_linear, r.block.x, r.block.y, f.thread.x, f.thread.y,
          f.thread.z);
    }
  }
  if (r.run) {
    const auto& run = *r.run;
    s += "\n";
    if (run.mismatches == 0) {
      s += "  " +
           st.good(say(l, "--run on {}: all {} threads computed exactly the indices above.",
                       "--run 于 {}：全部 {} 个线程算出的索引与上表完全一致。", run.backend,
                       group_thousands(run.checked))) +
           "\n";
    } else {
      s += "  " +
           st.bad(say(l, "--run on {0}: {1} of {2} threads differ; first: {3}",
                      "--run 于 {0}：{2} 个线程中有 {1} 个不一致；第一个：{3}", run.backend,
                      run.mismatches, run.checked, run.first_mismatch)) +
           "\n";
    }
    s += emulator_notes(run.run, st, l);
  }
  write(s);
}

nlohmann::json index_map_json(const IndexMapResult& r) {
  auto xyz = [](const auto& c) { return nlohmann::json::array({c.x, c.y, c.z}); };
  auto place = [&](const calc::ThreadPlace& p) {
    return nlohmann::json{{"block", xyz(p.block)},
                          {"thread", xyz(p.thread)},
                          {"block_linear", p.block_linear},
                          {"thread_linear", p.thread_linear},
                          {"global", p.global},
                          {"warp", p.warp},
                          {"lane", p.lane}};
  };
  nlohmann::json j = {{"command", "index-map"},
                      {"grid", xyz(r.grid)},
                      {"block", xyz(r.block)},
                      {"blocks", r.launch.blocks},
                      {"threads_per_block", r.launch.threads_per_block},
                      {"warps_per_block", r.launch.warps_per_block},
                      {"idle_lanes_per_block", r.launch.idle_lanes_per_block}};
  j["total_threads"] =
      r.total_overflows ? nlohmann::json(r.total_approx) : nlohmann::json(r.total_threads);
  if (r.all_threads) {
    nlohmann::json threads = nlohmann::json::array();
    for (const auto& p : r.threads) threads.push_back(place(p));
    j["threads"] = std::move(threads);
  }
  j["example"] = place(r.example);
  if (r.found) {
    j["find"] = {{"index", r.found->global},
                 {"block", xyz(r.found->block)},
                 {"thread", xyz(r.found->thread)},
                 {"warp", r.found->warp}};
  }
  if (r.run) {
    j["run"] = {{"checked", r.run->checked},
                {"mismatches", r.run->mismatches},
                {"verified", r.run->mismatches == 0}};
    j["run"].update(backend_json_fields(r.run->backend, r.run->device, r.run->run));
  }
  return j;
}

void setup_index_map(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string grid, block, find, show = "auto";
    bool run = false, source = false;
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "index-map",
      {"Every thread's block, thread, global index and warp, drawn and explained",
       "每个线程的线程块、线程号、全局索引和线程束，画出来并逐一解释"},
      [&g](Raw& args) {
        if (args.grid.empty() || args.block.empty()) {
          if (!args.source)
            throw UsageError("index-map needs --grid G and --block B (X, XxY or XxYxZ)",
                             "index-map 需要 --grid G 和 --block B（X、XxY 或 XxYxZ）");
          // --source without a launch: still check what was typed.
          if (!args.grid.empty()) parse_dim3("--grid", args.grid);
          if (!args.block.empty()) parse_dim3("--block", args.block);
          if (!args.find.empty()) parse_int("--find", args.find, 0, INT64_MAX);
          parse_show(args.show);
          return emit_sources(g, "index-map", {"index_map.cuh"});
        }
        const Dim3 gd = parse_dim3("--grid", args.grid);
        const Dim3 bd = parse_dim3("--block", args.block);
        IndexMapOptions o;
        o.grid = {gd.x, gd.y, gd.z};
        o.block = {bd.x, bd.y, bd.z};
        o.rank = std::max(gd.rank, bd.rank);
        if (auto problem = limits::check_launch_text(o.grid, o.block)) {
          const bool is_grid = problem->en.starts_with("grid");
          bad_value(is_grid ? "--grid" : "--block", is_grid ? args.grid : args.block, *problem);
        }
        std::uint64_t total = 0;
        const bool overflows = __builtin_mul_overflow(o.grid.volume(), o.block.volume(), &total);
        if (!args.find.empty()) {
          const std::int64_t max = overflows || total - 1 > static_cast<std::uint64_t>(INT64_MAX)
                                       ? INT64_MAX
                                       : static_cast<std::int64_t>(total - 1);
          o.find = static_cast<std::uint64_t>(
              parse_int("--find", args.find, 0, max,
                        {"a global thread index of this launch", "这次启动中的一个全局线程下标"}));
        }
        o.show = parse_show(args.show);
        if (o.show == ShowMode::all && (overflows || total > kShowAllUpTo)) {
          bad_value("--show", "all",
                    both("lists at most {} threads", "最多列出 {} 个线程",
                         group_thousands(kShowAllUpTo)));
        }
        o.run = args.run;
        if (o.run && (overflows || total > kRunUpTo)) {
          const std::string count = overflows ? std::string("> 2^64") : group_thousands(total);
          throw UsageError(
              both("--run: {} threads is more than {} (each thread writes a 32-byte "
                   "record the host checks)",
                   "--run：{} 个线程超过了 {}（每个线程写一条 32 字节的记录，由主机检查）", count,
                   group_thousands(kRunUpTo)));
        }
        if (args.source) return emit_sources(g, "index-map", {"index_map.cuh"});
        // A pure calculator unless --run: no backend, so the CUDA driver is never loaded.
        std::unique_ptr<Backend> backend = o.run ? open_backend(g) : nullptr;
        IndexMapResult r = run_index_map(o, backend.get());
        if (g.out.json) {
          emit(g, index_map_json(r), "");
        } else {
          errno = 0;  // so that a failed write's reason reaches flush_stdout()
          render_index_map_to(r, g.out,
                              [&g](std::string_view piece) { print_laid_out(piece, g.out.lang); });
          flush_stdout();
        }
        if (r.run && r.run->mismatches > 0)
          throw RuntimeFailure("index-map --run: the kernel's indices differ from the table",
                               "index-map --run：内核算出的下标与表格不符");
      });
  needed(sub->add_option("--grid", raw->grid,
                         help_tr(g, "Blocks in the grid: X, XxY or XxYxZ (e.g. 2x3 or 2,3)",
                                 "网格中的线程块：X、XxY 或 XxYxZ（例如 2x3 或 2,3）"))
             ->type_name("G"));
  needed(sub->add_option("--block", raw->block,
                         help_tr(g, "Threads per block: X, XxY or XxYxZ (e.g. 3x4 or 3,4)",
                                 "每个线程块的线程：X、XxY 或 XxYxZ（例如 3x4 或 3,4）"))
             ->type_name("B"));
  sub->add_option(
         "--find", raw->find,
         help_tr(g, "Which block and thread handle element I", "元素 I 由哪个线程块的哪个线程处理"))
      ->type_name("I");
  sub->add_flag("--run", raw->run,
                help_tr(g,
                        "Launch a real kernel in which every thread writes its indices, and "
                        "compare",
                        "启动一个真实的内核，让每个线程写下自己的索引，再与表格比对"));
  add_show_option(sub, raw->show, g);
  sub->add_flag("--source", raw->source,
                help_tr(g, "Print the CUDA source of the --run kernel instead of running it",
                        "打印 --run 所用内核的 CUDA 源码，而不运行它"));
}

}  // namespace gpulab
