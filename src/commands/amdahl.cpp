// gpulab amdahl (see amdahl.hpp).
#include "commands/amdahl.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "calc/amdahl.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/plot.hpp"
#include "core/text.hpp"

namespace gpulab {

AmdahlResult run_amdahl(const AmdahlOptions& o) {
  AmdahlResult r;
  r.p = o.p;
  for (std::int64_t n : o.n) {
    const auto nd = static_cast<double>(n);
    const double s = calc::amdahl_speedup(o.p, nd);
    r.rows.push_back({n, s, s / nd, calc::gustafson_speedup(o.p, nd)});
  }
  r.limit = calc::amdahl_limit(o.p);
  r.n_for_90_percent = calc::processors_for_fraction_of_limit(o.p, 0.9);
  return r;
}

namespace {

std::string num(double v) {
  return format_number(v, 2);
}

// P as written in formulas: 0.95, not 0.950000, and 0.999999999999 in full, not rounded to 1.
std::string frac(double v) {
  const std::string six = format_real(v, 6);
  return std::stod(six) == v ? six : fmt::format("{}", v);
}

// A speedup with two decimals always (a column reads at one precision) and grouped thousands.
std::string fixed2(double v) {
  const std::string s = fmt::format("{:.2f}", v);
  const auto dot = s.find('.');
  return group_thousands(std::stoull(s.substr(0, dot))) + s.substr(dot);
}

// 1 - P, which must not read 0 while P < 1: 1e-12 for P = 0.999999999999.
std::string serial_part(double v) {
  return format_small(v);
}

// The limit 1 / (1 - P), with the digits that keep it above 1 when it is.
std::string limit_text(double v) {
  const std::string two = num(v);
  return two == "1" && v > 1 ? fmt::format("{}", v) : two;
}

}  // namespace

std::string render_amdahl(const AmdahlResult& r, const OutputOptions& out) {
  const Style st = style_for(out);
  const Lang l = out.lang;
  const double serial = 1.0 - r.p;
  std::string s;
  s += st.heading(std::string(tr(l, "Amdahl's law", "阿姆达尔定律"))) + "\n";
  s += fmt::format("  speedup(N) = 1 / (P/N + (1 - P))\n  P = {} {}, 1 - P = {} {}\n\n", frac(r.p),
                   tr(l, "(parallel part)", "（可并行部分）"), serial_part(serial),
                   tr(l, "(serial part)", "（串行部分）"));
  Table t({"N", std::string(tr(l, "speedup", "加速比")), std::string(tr(l, "worked", "代入")),
           std::string(tr(l, "efficiency", "效率")),
           std::string(tr(l, "Gustafson", "古斯塔夫森"))});
  for (const auto& row : r.rows) {
    t.add_row(
        {group_thousands(static_cast<unsigned long long>(row.n)), fixed2(row.speedup),
         fmt::format("1 / ({}/{} + {})", frac(r.p),
                     group_thousands(static_cast<unsigned long long>(row.n)), serial_part(serial)),
         format_percent(row.efficiency * 100, 2), num(row.gustafson)});
  }
  s += t.render(st);
  s += "\n";
  if (std::isinf(r.limit)) {
    s += fmt::format(
        "  {}\n", tr(l,
                     "Limit: with P = 1 nothing is serial, so the speedup grows "
                     "without bound (N-fold on N processors).",
                     "极限：P = 1 时没有串行部分，加速比随 N 无限增长（N 个处理器加速 N 倍）。"));
  } else if (r.p == 0) {
    // Nothing parallel: every N gives exactly 1x, so "stays below 1x" would be false.
    s += std::string(tr(l,
                        "  Limit: with P = 0 nothing runs in parallel: the speedup is exactly 1x "
                        "on any number\n  of processors.\n",
                        "  极限：P = 0 时没有任何部分并行：无论多少个处理器，加速比都恰好是 1 "
                        "倍。\n"));
  } else {
    s += say(l,
             "  Limit: 1 / (1 - P) = 1 / {} = {}x. However many processors, the "
             "serial {}% is never faster,\n  so the speedup stays below {}x.\n",
             "  极限：1 / (1 - P) = 1 / {} = {} 倍。无论有多少处理器，串行的 {}% "
             "都不会变快，\n  所以加速比始终低于 {} 倍。\n",
             serial_part(serial), limit_text(r.limit), format_small(serial * 100),
             limit_text(r.limit));
    if (r.n_for_90_percent > 0) {
      s += say(l, "  Reaching 90% of the limit ({}x) takes N >= {} processors.\n",
               "  达到极限的 90%（{} 倍）需要 N >= {} 个处理器。\n", num(0.9 * r.limit),
               group_thousands(static_cast<unsigned long long>(r.n_for_90_percent)));
    }
  }
  s += say(l,
           "  Gustafson: if the problem grows with N (the parallel part is P of the time on N\n"
           "  processors), the scaled speedup is (1 - P) + P*N, e.g. {} + {}*{} = {} for N = "
           "{}.\n\n",
           "  古斯塔夫森定律：若问题规模随 N 增长（在 N 个处理器上并行部分占时间的 P），\n"
           "  扩展加速比为 (1 - P) + P*N，例如 N = {4} 时 {0} + {1}*{2} = {3}。\n\n",
           serial_part(serial), frac(r.p),
           group_thousands(static_cast<unsigned long long>(r.rows.back().n)),
           num(r.rows.back().gustafson),
           group_thousands(static_cast<unsigned long long>(r.rows.back().n)));

  // The curve: many N on a log axis, the asked-for N marked, the limit dashed.
  PlotSpec plot;
  PlotSeries curve{{}, {}, '.'};
  const double n_max = static_cast<double>(r.rows.back().n);
  const double n_min = static_cast<double>(r.rows.front().n);
  if (n_max > n_min) {
    for (int i = 0; i <= 120; ++i) {
      double n = n_min * std::pow(n_max / n_min, i / 120.0);
      curve.x.push_back(n);
      curve.y.push_back(calc::amdahl_speedup(r.p, n));
    }
  }
  PlotSeries points{{}, {}, 'o'};
  for (const auto& row : r.rows) {
    points.x.push_back(static_cast<double>(row.n));
    points.y.push_back(row.speedup);
  }
  plot.series = {curve, points};
  if (std::isfinite(r.limit)) plot.hlines = {r.limit};
  plot.log_x = true;
  plot.y_label = std::string(
      tr(l, "speedup (o: your N, - - -: the limit)", "加速比（o：给定的 N，- - -：极限）"));
  plot.x_label = std::string(tr(l, "N processors (log scale)", "处理器数 N（对数坐标）"));
  s += render_plot(plot, st);
  return s;
}

// One row of the table as JSON (nlohmann finds it by argument-dependent lookup, so a vector of
// rows converts to an array).
void to_json(nlohmann::json& j, const AmdahlRow& row) {
  j = {{"n", row.n},
       {"speedup", row.speedup},
       {"efficiency", row.efficiency},
       {"gustafson_speedup", row.gustafson}};
}

nlohmann::json amdahl_json(const AmdahlResult& r) {
  nlohmann::json j = {
      {"command", "amdahl"}, {"p", r.p}, {"serial_fraction", 1.0 - r.p}, {"rows", r.rows}};
  j["limit"] = std::isinf(r.limit) ? nlohmann::json(nullptr) : nlohmann::json(r.limit);
  j["n_for_90_percent_of_limit"] =
      r.n_for_90_percent > 0 ? nlohmann::json(r.n_for_90_percent) : nlohmann::json(nullptr);
  return j;
}

void setup_amdahl(CLI::App& app, GlobalOptions& g) {
  struct Raw {
    std::string p, n = "10,100,1000,10000,100000";
  };
  const auto [sub, raw] = add_command<Raw>(
      app, g, "amdahl",
      {"Amdahl's law: speedup against processors, its limit, Gustafson",
       "阿姆达尔定律：加速比与处理器数的关系、它的上限、古斯塔夫森定律"},
      [&g](Raw& args) {
        AmdahlOptions o;
        o.p = parse_real(
            "--p", args.p, 0.0, 1.0,
            {"P is the parallel fraction of the run time", "P 是运行时间中可并行的比例"});
        o.n = parse_int_list("--n", args.n, 1, 1'000'000'000'000,
                             {"N counts processors", "N 是处理器的个数"});
        AmdahlResult r = run_amdahl(o);
        emit(g, amdahl_json(r), render_amdahl(r, g.out));
      });
  sub->add_option("--p", raw->p,
                  help_tr(g, "Parallel fraction P of the run time, 0 to 1 (e.g. 0.95)",
                          "运行时间中可并行部分的比例 P，0 到 1（例如 0.95）"))
      ->required()
      ->type_name("P");
  sub->add_option("--n", raw->n,
                  help_tr(g, "Processor counts, comma-separated (default 10,100,1000,10000,100000)",
                          "处理器数，用逗号分隔（默认 10,100,1000,10000,100000）"))
      ->type_name("N1,N2,...");
}

}  // namespace gpulab
