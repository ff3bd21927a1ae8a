// "Did you mean" (see suggest.hpp).
#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace gpulab {

namespace {

char fold(char c) {
  if (c == '_') return '-';
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours (amdhal -> amdahl).
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& names) {
  if (typed.empty()) return std::nullopt;
  // Leading dashes are not letters the user chose: compare "--jsn" with "--json" by "jsn", "json".
  auto body = [](std::string_view s) {
    return s.substr(std::min(s.find_first_not_of('-'), s.size()));
  };
  const std::string_view t = body(typed);
  std::optional<std::string> best;
  std::size_t best_distance = SIZE_MAX;
  bool tie = false;
  for (const std::string& name : names) {
    const std::string_view nb = body(name);
    const std::size_t dist = edit_distance(t, nb);
    if (dist < best_distance) {
      best = name;
      best_distance = dist;
      tie = false;
    } else if (dist == best_distance && name != *best) {
      tie = true;
    }
  }
  const std::size_t allowed = t.size() <= 4 ? 1 : 2;
  if (best && best_distance <= allowed && best_distance < t.size() && !tie) return best;
  // A unique prefix: `gpulab warp` -> warp-hiding.
  std::optional<std::string> prefixed;
  for (const std::string& name : names) {
    const std::string_view nb = body(name);
    if (t.size() >= 2 && nb.size() > t.size() && edit_distance(nb.substr(0, t.size()), t) == 0) {
      if (prefixed) return std::nullopt;
      prefixed = name;
    }
  }
  return prefixed;
}

}  // namespace gpulab
