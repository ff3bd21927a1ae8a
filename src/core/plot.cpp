// Terminal line plots (see plot.hpp).
#include "core/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.hpp"

namespace gpulab {

std::string render_plot(const PlotSpec& spec, const Style& style) {
  const int h = std::max(spec.height, 4);
  auto tx = [&](double x) { return spec.log_x ? std::log10(x) : x; };
  double x0 = INFINITY, x1 = -INFINITY, y0 = spec.y_min, y1 = -INFINITY;
  const bool auto_y0 = std::isnan(spec.y_min);
  if (auto_y0) y0 = INFINITY;
  for (const auto& s : spec.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (spec.log_x && s.x[i] <= 0)) continue;
      x0 = std::min(x0, tx(s.x[i]));
      x1 = std::max(x1, tx(s.x[i]));
      y1 = std::max(y1, s.y[i]);
      if (auto_y0) y0 = std::min(y0, s.y[i]);
    }
  }
  for (double v : spec.hlines) {
    if (std::isfinite(v)) y1 = std::max(y1, v);
  }
  if (!std::isfinite(x0)) return {};
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  y1 += (y1 - y0) * 0.05;
  const std::string top = format_real(y1, 1), bottom = format_real(y0, 1);
  const std::size_t label_w = std::max(top.size(), bottom.size());
  // The plotting area narrows to the terminal: "  <label> |" comes before it.
  const int room = static_cast<int>(style.width()) - static_cast<int>(label_w) - 4;
  const int w = std::max(std::min(spec.width, room), 10);
  std::vector<std::string> grid(h, std::string(w, ' '));
  auto col = [&](double x) {
    return std::clamp(static_cast<int>(std::lround((tx(x) - x0) / (x1 - x0) * (w - 1))), 0, w - 1);
  };
  auto row = [&](double y) {
    return std::clamp(h - 1 - static_cast<int>(std::lround((y - y0) / (y1 - y0) * (h - 1))), 0,
                      h - 1);
  };
  for (double v : spec.hlines) {
    if (!std::isfinite(v)) continue;
    for (int c = 0; c < w; c += 2) grid[row(v)][c] = '-';
  }
  for (double v : spec.vlines) {
    for (int r = 0; r < h; ++r) grid[r][col(v)] = '|';
  }
  for (const auto& s : spec.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (spec.log_x && s.x[i] <= 0)) continue;
      grid[row(s.y[i])][col(s.x[i])] = s.mark;
    }
  }
  std::string out;
  if (!spec.y_label.empty()) out += fmt::format("  {}\n", style.dim(spec.y_label));
  for (int r = 0; r < h; ++r) {
    std::string label = r == 0 ? top : r == h - 1 ? bottom : std::string();
    std::string line = grid[r];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += fmt::format("  {} |{}\n", pad_left(label, label_w), line);
  }
  out += fmt::format("  {} +{}\n", std::string(label_w, ' '), std::string(w, '-'));
  auto x_text = [&](double v) {
    double x = spec.log_x ? std::pow(10.0, v) : v;
    return format_real(x, x < 10 ? 1 : 0);
  };
  std::string left = x_text(x0), right = x_text(x1);
  std::string axis(label_w + 4, ' ');
  axis += left;
  const std::size_t right_at = label_w + 4 + w - right.size();
  if (axis.size() + 1 < right_at) axis.append(right_at - axis.size(), ' ');
  axis += right;
  out += axis + "\n";
  if (!spec.x_label.empty()) {
    const std::size_t label = display_width(spec.x_label);
    const std::size_t centre = label < static_cast<std::size_t>(w) ? (w - label) / 2 : 0;
    out += fmt::format("  {}{}\n", std::string(label_w + 2 + centre, ' '), style.dim(spec.x_label));
  }
  return out;
}

}  // namespace gpulab
