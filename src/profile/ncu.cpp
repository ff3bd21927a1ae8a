// ncu's command line and CSV (see ncu.hpp).
#include "profile/ncu.hpp"

#include <cstdlib>
#include <sstream>

namespace gpulab::profile {

const std::vector<std::string>& ncu_metric_names() {
  static const std::vector<std::string> names = {
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "smsp__thread_inst_executed_per_inst_executed.ratio",
      "smsp__sass_average_branch_targets_threads_uniform.pct"};
  return names;
}

std::vector<std::string> ncu_arguments() {
  std::string all;
  for (const auto& m : ncu_metric_names()) all += (all.empty() ? "" : ",") + m;
  return {"--metrics", all, "--csv", "--page", "details", "--print-units", "base"};
}

namespace {

// One CSV record of quoted fields ("a","b,c","d""e").
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

}  // namespace

std::vector<NcuLaunch> parse_ncu_csv(const std::string& text) {
  std::vector<NcuLaunch> out;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  auto column = [&](const char* name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '"') continue;
    std::vector<std::string> f = split_csv(line);
    if (header.empty()) {
      header = std::move(f);
      continue;
    }
    const int id = column("ID"), kernel = column("Kernel Name"), name = column("Metric Name"),
              value = column("Metric Value"), grid = column("Grid Size"),
              block = column("Block Size");
    if (id < 0 || name < 0 || value < 0 || static_cast<std::size_t>(value) >= f.size()) continue;
    if (out.empty() || out.back().id != f[static_cast<std::size_t>(id)]) {
      NcuLaunch l;
      l.id = f[static_cast<std::size_t>(id)];
      if (kernel >= 0) l.kernel = f[static_cast<std::size_t>(kernel)];
      if (grid >= 0) l.grid = f[static_cast<std::size_t>(grid)];
      if (block >= 0) l.block = f[static_cast<std::size_t>(block)];
      out.push_back(std::move(l));
    }
    std::string v = f[static_cast<std::size_t>(value)];
    std::string digits;
    for (char c : v)
      if (c != ',') digits += c;  // "1,024" in some locales
    char* end = nullptr;
    const double d = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str()) out.back().metrics[f[static_cast<std::size_t>(name)]] = d;
  }
  return out;
}

std::string ncu_short_name(const std::string& kernel) {
  const auto paren = kernel.find('(');
  std::string s = paren == std::string::npos ? kernel : kernel.substr(0, paren);
  // "void ns::kernel<int>" -> "ns::kernel<int>"
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  return s;
}

}  // namespace gpulab::profile
