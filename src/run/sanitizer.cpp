// Reading compute-sanitizer's text output (see sanitizer.hpp).
#include "run/sanitizer.hpp"

#include <algorithm>
#include <regex>
#include <sstream>
#include <utility>

namespace gpulab::run {

using nlohmann::json;

namespace {

// "1,024" -> 1024.
std::uint64_t number(const std::string& text) {
  std::uint64_t n = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

// "sumKernel(int *, int *)+0x110", "void fill<3>(int*)" -> "sumKernel", "fill<3>".
std::string kernel_name(std::string f) {
  if (const auto plus = f.rfind("+0x"); plus != std::string::npos) f.resize(plus);
  return bare_function_name(std::move(f));
}

json dims3(const std::smatch& m, std::size_t first) {
  return json::array(
      {number(m[first].str()), number(m[first + 1].str()), number(m[first + 2].str())});
}

// "at sumKernel(int *)+0x110 in /dir/race.cu:41" (compute-sanitizer since 2022) or
// "at 0x00000110 in /dir/race.cu:41:sumKernel(int *)" (older, and cuda-memcheck): the code
// location and the kernel.
bool parse_location(const std::string& text, std::string& where, std::string& kernel) {
  static const std::regex old_style(R"(^(?:at )?0x[0-9a-fA-F]+ in (.+?):(\d+):(.+)$)");
  static const std::regex new_style(R"(^(?:at )?(.+?) in (.+):(\d+)$)");
  std::smatch m;
  if (std::regex_match(text, m, old_style)) {
    where = m[1].str() + ":" + m[2].str();
    kernel = kernel_name(m[3].str());
    return true;
  }
  if (std::regex_match(text, m, new_style)) {
    where = m[2].str() + ":" + m[3].str();
    kernel = kernel_name(m[1].str());
    return true;
  }
  return false;
}

}  // namespace

std::string bare_function_name(std::string name) {
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0) {
      name.resize(i);
      break;
    }
  }
  depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (name[i] == ' ' && depth == 0) {
      name.erase(0, i + 1);
      break;
    }
  }
  return name;
}

SanitizerReport parse_sanitizer_output(const std::string& tool, const std::string& text) {
  SanitizerReport report;
  static const std::regex access(
      R"(^Invalid (__global__|__shared__|__local__|__generic__)?\s*(read|write|atomic)\S* of size (\d+) bytes?)");
  static const std::regex uninit(
      R"(^Uninitialized (__global__)? ?memory read of size (\d+) bytes?)");
  static const std::regex barrier(R"(^Barrier error detected\.?\s*(.*)$)");
  static const std::regex sync_other(
      R"(^(Invalid arguments|Invalid usage|Warp synchronization error).*)");
  static const std::regex hardware(
      R"(^((?:Warp|Lane|Device) (?:Illegal Address|Misaligned Address|Illegal Instruction|Out-of-range Address|Hardware Stack Overflow|User Stack Overflow|Invalid PC|Invalid Address Space|Assert|Misaligned PC).*)$)");
  static const std::regex by_thread(
      R"(^by thread \((\d+),\s*(\d+),\s*(\d+)\) in block \((\d+),\s*(\d+),\s*(\d+)\))");
  static const std::regex address(R"(^(?:Address|Access to) 0x[0-9a-fA-F]+ ?(?:is )?(.*)$)");
  static const std::regex host_api(
      R"(^Host API memory access error at host access to 0x[0-9a-fA-F]+ of size ([\d,]+) bytes?)");
  static const std::regex host_uninit(
      R"(^Uninitialized access to 0x[0-9a-fA-F]+ on access by (\w+) (\w+))");
  static const std::regex host_frame(R"(^Host Frame:\s*(.*?) \[0x([0-9a-fA-F]+)\])");
  static const std::regex nearest(
      R"(^and is ([\d,]+) bytes (before|after) the nearest allocation at 0x[0-9a-fA-F]+ of size ([\d,]+) bytes)");
  static const std::regex inside(
      R"(^and is inside the nearest allocation at 0x[0-9a-fA-F]+ of size ([\d,]+) bytes)");
  static const std::regex race(
      R"(^(Error|Warning): Race reported between (Read|Write) access at (.+)$)");
  static const std::regex race_other(
      R"(^and (Read|Write) access at (.+?)(?: \[([\d,]+) hazards?\])?$)");
  static const std::regex hazard(
      R"(^(Error|Warning|WARN|ERROR):?(?:\([^)]*\))? Potential (RAW|WAR|WAW) hazard detected at __shared__ 0x([0-9a-fA-F]+) in block \((\d+),\s*(\d+),\s*(\d+)\))");
  static const std::regex hazard_thread(
      R"(^(Read|Write) Thread \((\d+),\s*(\d+),\s*(\d+)\) at (.+)$)");
  static const std::regex leak(R"(^Leaked ([\d,]+) bytes? at 0x[0-9a-fA-F]+)");
  static const std::regex api(
      R"re(^Program hit (cuda\w+) \(error (\d+)\) due to "(.*)" on CUDA API call to (\w+))re");
  static const std::regex error_summary(R"(^ERROR SUMMARY: ([\d,]+) errors?$)");
  static const std::regex race_summary(
      R"(^RACECHECK SUMMARY: ([\d,]+) hazards? displayed \(([\d,]+) errors?, ([\d,]+) warnings?\))");

  json* current = nullptr;  // the finding whose detail lines follow
  int hazard_threads = 0;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.rfind("=========", 0) != 0) continue;  // the program's own output
    std::string line = raw.substr(9);
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) {
      current = nullptr;  // an empty "=========" line ends a record
      continue;
    }
    line.erase(0, first);
    std::smatch m;
    const auto start = [&](const std::string& kind) {
      report.findings.push_back({{"kind", kind}, {"tool", tool}, {"where", ""}, {"message", line}});
      current = &report.findings.back();
      hazard_threads = 0;
      return current;
    };
    if (std::regex_search(line, m, access)) {
      json& f = *start("out_of_bounds");
      const std::string space = m[1].matched ? m[1].str().substr(2, m[1].str().size() - 4) : "";
      f["space"] = space.empty() ? "generic" : space;
      f["write"] = m[2].str() != "read";
      f["bytes"] = number(m[3].str());
    } else if (std::regex_search(line, m, uninit)) {
      json& f = *start("uninitialized_read");
      f["space"] = "global";
      f["write"] = false;
      f["bytes"] = number(m[2].str());
    } else if (std::regex_search(line, m, barrier) || std::regex_search(line, m, sync_other) ||
               std::regex_search(line, m, hardware)) {
      start("kernel_fault");
    } else if (std::regex_search(line, m, race)) {
      json& f = *start("shared_race");
      f["severity"] = m[1].str() == "Error" ? "error" : "warning";
      f["write"] = m[2].str() == "Write";
      std::string where, kernel;
      if (parse_location(m[3].str(), where, kernel)) {
        f["where"] = where;
        f["kernel"] = kernel;
      }
    } else if (current != nullptr && (*current)["kind"] == "shared_race" &&
               std::regex_search(line, m, race_other)) {
      json& f = *current;
      f["other_write"] = m[1].str() == "Write";
      std::string where, kernel;
      if (parse_location(m[2].str(), where, kernel)) f["other_where"] = where;
      if (m[3].matched) f["hits"] = number(m[3].str());
    } else if (std::regex_search(line, m, hazard)) {
      json& f = *start("shared_race");
      f["severity"] = (m[1].str() == "Error" || m[1].str() == "ERROR") ? "error" : "warning";
      f["hazard"] = m[2].str();
      f["shared_offset"] = std::stoull(m[3].str(), nullptr, 16);
      f["block"] = dims3(m, 4);
    } else if (current != nullptr && (*current)["kind"] == "shared_race" &&
               std::regex_search(line, m, hazard_thread)) {
      json& f = *current;
      std::string where, kernel;
      parse_location(m[5].str(), where, kernel);
      if (hazard_threads++ == 0) {
        f["write"] = m[1].str() == "Write";
        f["thread"] = dims3(m, 2);
        f["where"] = where;
        f["kernel"] = kernel;
      } else {
        f["other_write"] = m[1].str() == "Write";
        f["other_thread"] = dims3(m, 2);
        f["other_where"] = where;
      }
    } else if (std::regex_search(line, m, host_api)) {
      json& f = *start("uninitialized_copy");
      f["copied"] = number(m[1].str());
    } else if (current != nullptr && std::regex_search(line, m, host_uninit)) {
      (*current)["api"] = m[1].str();
      (*current)["side"] = m[2].str();
    } else if (current != nullptr && std::regex_search(line, m, host_frame)) {
      // The host's call frames (offsets in the program): where an allocation, a copy or a launch
      // was made, once addr2line has named them.
      (*current)["host_frames"].push_back(std::stoull(m[2].str(), nullptr, 16));
    } else if (std::regex_search(line, m, leak)) {
      json& f = *start("leak");
      f["bytes"] = number(m[1].str());
      f["allocator"] = "cudaMalloc";
    } else if (std::regex_search(line, m, api)) {
      json& f = *start("launch_error");
      f["error"] = m[1].str();
      f["api"] = m[4].str();
      // Only a failed launch is a finding of its own; a later call failing after a kernel fault
      // is that fault's echo, already reported.
      if (m[4].str().find("Launch") == std::string::npos) {
        report.findings.pop_back();
        current = nullptr;
      }
    } else if (std::regex_search(line, m, error_summary)) {
      if (tool != "racecheck" && report.errors < 0) {
        report.errors = static_cast<int>(number(m[1].str()));
      }
      current = nullptr;
    } else if (std::regex_search(line, m, race_summary)) {
      report.errors = static_cast<int>(number(m[2].str()));
      current = nullptr;
    } else if (current != nullptr) {
      json& f = *current;
      std::string where, kernel;
      if (std::regex_search(line, m, by_thread)) {
        f["thread"] = dims3(m, 1);
        f["block"] = dims3(m, 4);
      } else if (std::regex_search(line, m, nearest)) {
        const auto distance = static_cast<std::int64_t>(number(m[1].str()));
        const auto size = static_cast<std::int64_t>(number(m[3].str()));
        f["region"] = "allocation";
        f["region_bytes"] = size;
        // "1 bytes after" is the first byte past the end (recorded on an H100: element 1000 of
        // 1000 floats).
        f["offset"] = m[2].str() == "before" ? -distance : size + distance - 1;
        // Terabytes away from every allocation: no device memory at all, such as a host pointer.
        if (distance > (std::int64_t{1} << 32)) f["kind"] = "host_memory";
      } else if (std::regex_search(line, m, inside)) {
        f["region"] = "allocation";
        f["region_bytes"] = number(m[1].str());
      } else if (std::regex_search(line, m, address)) {
        if (m[1].str().find("misaligned") != std::string::npos) f["kind"] = "misaligned_access";
        f["address_is"] = m[1].str();
      } else if (line.rfind("at ", 0) == 0 && f.value("where", "").empty() &&
                 parse_location(line, where, kernel)) {
        f["where"] = where;
        f["kernel"] = kernel;
      }
    }
  }
  // After a kernel's fault the program's cudaFree calls fail, so its allocations "leak": the
  // fault's consequence, not a bug of its own (the emulator reports no leaks after a fault either).
  const bool faulted =
      std::any_of(report.findings.begin(), report.findings.end(), [](const json& f) {
        const std::string k = f.value("kind", "");
        return k == "out_of_bounds" || k == "misaligned_access" || k == "host_memory" ||
               k == "kernel_fault";
      });
  if (faulted) {
    report.findings.erase(
        std::remove_if(report.findings.begin(), report.findings.end(),
                       [](const json& f) { return f.value("kind", "") == "leak"; }),
        report.findings.end());
  }
  return report;
}

}  // namespace gpulab::run
