// Drawings of one warp's access (see draw.hpp).
#include "profile/draw.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/i18n_format.hpp"

namespace gpulab::profile {

char lane_char(unsigned lane) {
  return lane < 10 ? static_cast<char>('0' + lane) : static_cast<char>('a' + (lane - 10) % 26);
}

std::string draw_sectors(const WarpAccess& a, unsigned max_rows, Lang l) {
  // Segment (128 bytes) -> its 32 words, each the lane that asked for it.
  std::map<std::uint64_t, std::string> rows;
  std::map<std::uint64_t, std::array<bool, 4>> fetched;
  const std::uint64_t width = std::max<std::uint32_t>(a.width, 1);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if ((a.active >> lane & 1u) == 0) continue;
    for (std::uint64_t byte = a.address[lane]; byte < a.address[lane] + width; byte += 4) {
      const std::uint64_t segment = byte / 128;
      auto [it, fresh] = rows.try_emplace(segment, std::string(32, ' '));
      const auto word = static_cast<std::size_t>(byte % 128 / 4);
      it->second[word] = lane_char(lane);
      fetched[segment][word / 8] = true;
    }
  }
  std::string out;
  out += both("  bytes        sector 0 sector 1 sector 2 sector 3  (4 bytes a character)\n",
              "  字节         扇区 0   扇区 1   扇区 2   扇区 3    （每个字符 4 字节）\n")
             .in(l);
  const std::uint64_t first = rows.empty() ? 0 : rows.begin()->first;
  unsigned shown = 0;
  for (const auto& [segment, words] : rows) {
    if (shown == max_rows) break;
    ++shown;
    std::string line;
    for (unsigned s = 0; s < 4; ++s) {
      if (s > 0) line += '|';
      for (unsigned w = 0; w < 8; ++w) {
        const char c = words[s * 8 + w];
        line += c != ' ' ? c : (fetched[segment][s] ? '.' : ' ');
      }
    }
    out += fmt::format("  +{:<10}  {}\n", (segment - first) * 128, line);
  }
  if (rows.size() > shown) {
    out += both("  ... {} more 128-byte rows\n", "  ……还有 {} 行（每行 128 字节）\n",
                rows.size() - shown)
               .in(l);
  }
  return out;
}

std::string draw_banks(const WarpAccess& a, unsigned max_rows, Lang l) {
  const unsigned part_lanes = shared_lanes_per_part(a.width);
  const unsigned words_per_lane = std::max<std::uint32_t>(a.width, kBankBytes) / kBankBytes;
  std::string out;
  out += both("  bank         0         1         2         3  (tens)\n",
              "  存储体       0         1         2         3  （十位）\n")
             .in(l);
  out += "               ";
  for (unsigned b = 0; b < kBanks; ++b) out += static_cast<char>('0' + b % 10);
  out += "\n";
  for (unsigned first = 0; first < kWarpLanes; first += part_lanes) {
    // bank -> distinct words in order, and for each word the first lane that wanted it.
    std::array<std::vector<std::pair<std::uint64_t, unsigned>>, kBanks> banks;
    bool any = false;
    for (unsigned lane = first; lane < first + part_lanes; ++lane) {
      if ((a.active >> lane & 1u) == 0) continue;
      any = true;
      for (unsigned k = 0; k < words_per_lane; ++k) {
        const std::uint64_t word = a.address[lane] / kBankBytes + k;
        auto& list = banks[word % kBanks];
        if (std::none_of(list.begin(), list.end(), [&](const auto& p) { return p.first == word; }))
          list.emplace_back(word, lane);
      }
    }
    if (!any) continue;
    std::size_t depth = 0;
    for (const auto& list : banks) depth = std::max(depth, list.size());
    if (part_lanes < kWarpLanes) {
      out += both("  lanes {}-{}:\n", "  通道 {}-{}：\n", first, first + part_lanes - 1).in(l);
    }
    for (std::size_t row = 0; row < depth && row < max_rows; ++row) {
      std::string line;
      for (const auto& list : banks) line += row < list.size() ? lane_char(list[row].second) : '.';
      out += fmt::format("  {:<12} {}\n", both("wavefront {}", "波前 {}", row + 1).in(l), line);
    }
    if (depth > max_rows) {
      out += both("  ... {} more wavefronts\n", "  ……还有 {} 个波前\n", depth - max_rows).in(l);
    }
  }
  return out;
}

}  // namespace gpulab::profile
