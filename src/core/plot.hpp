// Terminal line plots: y against x (optionally log x), with reference lines, in plain characters.
#pragma once

#include <string>
#include <vector>

#include "core/output.hpp"

namespace gpulab {

struct PlotSeries {
  std::vector<double> x, y;
  char mark = '*';  // drawn at each point
};

struct PlotSpec {
  std::vector<PlotSeries> series;
  std::vector<double> hlines;  // horizontal reference lines, drawn as '-'
  std::vector<double> vlines;  // vertical reference lines, drawn as '|'
  bool log_x = false;
  int width = 60, height = 12;  // of the plotting area, in characters
  std::string x_label, y_label;
  double y_min = 0;  // the y axis starts here (NaN: from the data)
};

std::string render_plot(const PlotSpec& spec, const Style& style);

}  // namespace gpulab
