// Access drawings of an exercise's small test (see draw.hpp).
#include "exercise/draw.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "core/text.hpp"

namespace gpulab::exercise {

namespace {

using nlohmann::json;

// Who touched one element: threads named as in the launch (linear over the grid for 1-D).
struct Cell {
  std::set<std::string> readers, writers;
};

struct Picture {
  std::string title;
  std::size_t rows = 1, cols = 1;
  bool output = false;
  std::vector<Cell> cells;
};

std::string thread_name(const json& a, const json& block_dim) {
  // a = [array, address, bytes, bx, by, bz, tx, ty, tz, write]
  const auto bx = a[3].get<std::uint64_t>(), by = a[4].get<std::uint64_t>();
  const auto tx = a[6].get<std::uint64_t>(), ty = a[7].get<std::uint64_t>();
  const auto dx = block_dim[0].get<std::uint64_t>(), dy = block_dim[1].get<std::uint64_t>();
  if (dy == 1 && by == 0) return std::to_string(bx * dx + tx);  // the global 1-D index
  if (bx == 0 && by == 0) return fmt::format("{},{}", tx, ty);
  return fmt::format("{},{}", bx * dx + tx, by * dy + ty);
}

std::string cell_text(const Cell& c, bool output) {
  auto list = [](const std::set<std::string>& s) {
    std::string out;
    std::size_t k = 0;
    for (const auto& t : s) {
      if (k == 2) return out + fmt::format("+{}", s.size() - 2);
      out += (k++ ? " " : "") + t;
    }
    return out;
  };
  if (output) return c.writers.empty() ? "." : "w" + list(c.writers);
  if (!c.writers.empty())
    return "w" + list(c.writers) + (c.readers.empty() ? "" : " r" + list(c.readers));
  return c.readers.empty() ? "." : list(c.readers);
}

std::vector<Picture> pictures(const CheckResult& c) {
  std::vector<Picture> out;
  if (c.tests.empty() || c.tests.back().records.empty()) return out;
  const TestOutcome& t = c.tests.back();
  std::map<std::string, std::size_t> shared_index;
  for (const json& b : c.buffers) {
    Picture p;
    p.title = b.value("name", "");
    const auto n = b.value("elements", std::size_t{0});
    p.rows = std::max(1, b.value("rows", 1));
    p.cols = std::max<std::size_t>(1, n / p.rows);
    p.output = b.value("output", false);
    p.cells.resize(n);
    out.push_back(std::move(p));
  }
  for (const json& rec : t.records) {
    if (!rec.contains("accesses")) continue;
    const json block_dim = rec.value("block", json::array({1, 1, 1}));
    for (const json& a : rec["accesses"]) {
      const bool write = a[9].get<int>() != 0;
      const auto address = a[1].get<std::uint64_t>();
      const auto bytes = std::max<std::uint64_t>(1, a[2].get<std::uint64_t>());
      const std::string who = thread_name(a, block_dim);
      Cell* cell = nullptr;
      if (a[0].is_null()) {
        for (std::size_t i = 0; i < c.buffers.size() && cell == nullptr; ++i) {
          const auto base = c.buffers[i].value("address", std::uint64_t{0});
          const auto eb = c.buffers[i].value("element_bytes", std::uint64_t{4});
          if (address >= base && address < base + out[i].cells.size() * eb) {
            cell = &out[i].cells[(address - base) / eb];
          }
        }
      } else {
        // Shared memory: one picture per array and block, elements by the access size.
        const std::string key = fmt::format("__shared__ {} of block ({},{},{})",
                                            a[0].get<std::string>(), a[3].get<std::uint64_t>(),
                                            a[4].get<std::uint64_t>(), a[5].get<std::uint64_t>());
        auto it = shared_index.find(key);
        if (it == shared_index.end()) {
          Picture p;
          p.title = key;
          it = shared_index.emplace(key, out.size()).first;
          out.push_back(std::move(p));
        }
        Picture& p = out[it->second];
        const std::size_t index = address / bytes;
        if (index >= 4096) continue;
        if (p.cells.size() <= index) p.cells.resize(index + 1);
        p.cols = p.cells.size();
        cell = &p.cells[index];
      }
      if (cell == nullptr) continue;
      (write ? cell->writers : cell->readers).insert(who);
    }
  }
  return out;
}

}  // namespace

std::string render_drawing(const CheckResult& c, const OutputOptions& o) {
  const Lang l = o.lang;
  const Style st(o.color == ColorMode::always);
  const std::vector<Picture> ps = pictures(c);
  std::string s;
  if (ps.empty()) {
    return std::string(
        tr(l,
           "  No drawing: the small test recorded no accesses (the emulator "
           "records them; --backend gpu cannot).\n",
           "  没有图：小测试没有记录到访问（只有模拟器能记录，--backend gpu 不能）。\n"));
  }
  s += st.heading(std::string(tr(l, "Who touched what (test ", "谁访问了什么（测试 ")) +
                  c.tests.back().name.in(l) + std::string(tr(l, "):", "）："))) +
       "\n";
  s += std::string(tr(l,
                      "  each cell: the threads that read it; wN: thread N wrote it; . nobody. "
                      "Threads are numbered across the grid (blockIdx.x * blockDim.x + "
                      "threadIdx.x; x,y in 2-D).\n",
                      "  每格：读取它的线程；wN：线程 N 写入；.：无人访问。线程按整个网格编号"
                      "（blockIdx.x * blockDim.x + threadIdx.x；二维时为 x,y）。\n"));
  for (const Picture& p : ps) {
    s += "\n  " + st.bold(p.title) + "\n";
    // 1-D arrays in rows of 8, matrices as they are.
    const std::size_t cols =
        p.rows > 1 ? p.cols : std::min<std::size_t>(8, std::max<std::size_t>(1, p.cells.size()));
    std::vector<std::string> header = {""};
    for (std::size_t j = 0; j < cols; ++j) header.push_back(std::to_string(j));
    Table table(header);
    for (std::size_t start = 0; start < p.cells.size(); start += cols) {
      std::vector<std::string> row = {p.rows > 1 ? fmt::format("row {}", start / cols)
                                                 : fmt::format("[{}]", start)};
      for (std::size_t j = 0; j < cols; ++j) {
        row.push_back(start + j < p.cells.size() ? cell_text(p.cells[start + j], p.output) : "");
      }
      table.add_row(row);
    }
    s += table.render(st, 4);
  }
  return s;
}

json drawing_json(const CheckResult& c) {
  json out = json::array();
  for (const Picture& p : pictures(c)) {
    json cells = json::array();
    for (const Cell& cell : p.cells) {
      cells.push_back({{"read_by", cell.readers}, {"written_by", cell.writers}});
    }
    out.push_back({{"name", p.title}, {"rows", p.rows}, {"cells", cells}});
  }
  return out;
}

}  // namespace gpulab::exercise
