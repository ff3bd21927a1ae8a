// The help a user reads (see help.hpp).
#include "commands/help.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "commands/complete.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"
#include "core/suggest.hpp"
#include "core/text.hpp"

namespace gpulab {

namespace {

// The width the help is laid out for: COLUMNS, else the terminal's, else 80; at most 100, as long
// lines are hard to read.
std::size_t help_width() {
  std::size_t width = 80;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) width = ws.ws_col;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    char* end = nullptr;
    const unsigned long v = std::strtoul(c, &end, 10);
    if (*end == '\0' && v > 0) width = v;
  }
  return std::clamp<std::size_t>(width, 40, 100);
}

bool is_help_flag(const CLI::App& app, const CLI::Option* opt) {
  return opt == app.get_help_ptr() || opt == app.get_help_all_ptr();
}

// CLI11's layout, with gpulab's labels, the needed options marked, and under a command the global
// options it also takes (they work before or after it).
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(Lang lang) : lang_(lang) {
    label("Usage", std::string(tr(lang, "Usage", "用法")));
    label("OPTIONS", std::string(tr(lang, "OPTIONS", "选项")));
    label("SUBCOMMAND", std::string(tr(lang, "COMMAND", "命令")));
    label("SUBCOMMANDS", std::string(tr(lang, "COMMANDS", "命令")));
    label("Positionals", std::string(tr(lang, "Arguments", "参数")));
    label("REQUIRED", std::string(tr(lang, "(required)", "（必需）")));
    column_width(width_ >= 72 ? 32 : 0);
  }

  // One entry (an option or a command): its name, then its description from the column on,
  // wrapped at words to the width; padded by display width, as Chinese takes two columns a
  // character. Narrower than 72 columns, the description goes under the name.
  std::string entry(const std::string& name, const std::string& description) const {
    std::string out = "  " + name;
    std::size_t column = display_width(out);
    const std::size_t indent = column_width_ > 0 ? column_width_ : 6;
    if (description.empty()) return out + "\n";
    if (column + 1 > indent) {
      out += "\n";
      column = 0;
    }
    out.append(indent - column, ' ');
    return out + wrap_text(description, width_, indent, indent) + "\n";
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return entry(make_option_name(opt, is_positional) + make_option_opts(opt),
                 make_option_desc(opt));
  }

  std::string make_footer(const CLI::App* app) const override {
    return wrap_lines(app->get_footer());
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_lines(app->get_description());
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    return entry(sub->get_display_name(true), sub->get_description());
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string s = CLI::Formatter::make_option_opts(opt);
    if (is_needed(opt) && !opt->get_required()) s += " " + get_label("REQUIRED");
    return s;
  }

  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    const CLI::App* parent = app->get_parent();
    if (parent == nullptr || mode == CLI::AppFormatMode::Sub) {
      return CLI::Formatter::make_help(app, name, mode);
    }
    std::string out = make_description(app) + make_usage(app, name) + make_positionals(app) +
                      make_groups(app, mode) + make_subcommands(app, mode);
    std::vector<const CLI::Option*> global = parent->get_options(
        [parent](const CLI::Option* o) { return o->nonpositional() && !is_help_flag(*parent, o); });
    if (!global.empty()) {
      out += make_group(std::string(tr(lang_, "Global options (before or after the command)",
                                       "全局选项（放在命令之前或之后均可）")),
                        false, global);
    }
    return out + "\n" + make_footer(app);
  }

 private:
  // Each line of `text` wrapped at words to the width.
  std::string wrap_lines(const std::string& text) const {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      out += wrap_text(std::string_view(text).substr(start, end - start), width_, 0, 0) + "\n";
      start = end + 1;
    }
    return out;
  }

  Lang lang_;
  std::size_t width_ = help_width();
};

std::string roff_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  // A line that starts with . or ' would be read as a request.
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

// One option as a man page's tagged paragraph: .TP, the names in bold, the value in italics.
std::string man_option(const CLI::Option* opt, const HelpFormatter& f) {
  std::string tag;
  if (opt->get_positional()) {
    tag = fmt::format("\\fI{}\\fR",
                      roff_escape(opt->get_type_name().empty() ? opt->get_name(true, false)
                                                               : opt->get_type_name()));
  } else {
    std::vector<std::string> names;
    for (const auto& s : opt->get_snames()) names.push_back("\\fB\\-" + roff_escape(s) + "\\fR");
    for (const auto& l : opt->get_lnames()) names.push_back("\\fB\\-\\-" + roff_escape(l) + "\\fR");
    tag = fmt::format("{}", fmt::join(names, ", "));
    if (opt->get_expected_max() > 0 && !opt->get_type_name().empty()) {
      tag += " \\fI" + roff_escape(opt->get_type_name()) + "\\fR";
    }
  }
  if (opt->get_required() || is_needed(opt)) tag += " " + roff_escape(f.get_label("REQUIRED"));
  return fmt::format(".TP\n{}\n{}\n", tag, roff_escape(opt->get_description()));
}

}  // namespace

Lang prescan_lang(int argc, const char* const* argv) {
  std::optional<Lang> typed;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    std::string_view value;
    if (a == "--lang" && i + 1 < argc) {
      value = argv[++i];
    } else if (a.starts_with("--lang=")) {
      value = a.substr(7);
    } else {
      continue;
    }
    if (value == "en") typed = Lang::en;
    if (value == "zh") typed = Lang::zh;
  }
  return typed ? *typed : lang_from_environment();
}

void install_help_formatter(CLI::App& app, Lang lang) {
  app.formatter(std::make_shared<HelpFormatter>(lang));
  app.set_help_flag("-h,--help",
                    std::string(tr(lang, "Print this help and exit", "显示本帮助后退出")));
}

void localize_groups(CLI::App& app, Lang lang) {
  const std::string options(tr(lang, "Options", "选项"));
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_group() == "Options") opt->group(options);
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group() == "Subcommands") sub->group(std::string(tr(lang, "Commands", "命令")));
    localize_groups(*sub, lang);
  }
}

void setup_help(CLI::App& app, GlobalOptions& g) {
  auto topic = std::make_shared<std::string>();
  const Lang lang = g.out.lang;
  CLI::App* sub = add_command(
      app, g, "help",
      std::string(tr(lang, "Show the help of gpulab or of one command (as COMMAND --help does)",
                     "显示 gpulab 或某个命令的帮助（与 COMMAND --help 相同）")),
      [&app, topic, &g] {
        std::string text;
        if (topic->empty()) {
          text = app.get_formatter()->make_help(&app, "gpulab", CLI::AppFormatMode::Normal);
        } else {
          const CLI::App* command = find_command(app, *topic);
          if (command == nullptr) {
            std::vector<std::string> names;
            for (const CLI::App* c : visible_commands(app)) names.push_back(c->get_name());
            const auto guess = closest_name(*topic, names);
            bad_value("help", *topic,
                      chosen(guess ? say(g.out.lang, "no such command; did you mean {}?",
                                         "没有这个命令；你是想输入 {} 吗？", *guess)
                                   : say(g.out.lang, "no such command; the commands are: {}",
                                         "没有这个命令；现有命令：{}", fmt::join(names, ", "))));
          }
          text = command->get_formatter()->make_help(command, "gpulab " + command->get_name(),
                                                     CLI::AppFormatMode::Normal);
        }
        errno = 0;  // so that a failed write's reason reaches flush_stdout()
        std::fwrite(text.data(), 1, text.size(), stdout);
        flush_stdout();
      });
  CLI::Option* command =
      sub->add_option("command", *topic,
                      std::string(tr(lang, "The command to explain (none: all of gpulab)",
                                     "要说明的命令（不写：整个 gpulab）")))
          ->type_name("COMMAND");
  set_completer(command, [&app] {
    std::vector<std::string> names;
    for (const CLI::App* c : visible_commands(app)) names.push_back(c->get_name());
    return names;
  });
}

std::string man_page(const CLI::App& app, Lang lang) {
  const HelpFormatter f(lang);
  std::string out;
  out += fmt::format(".\\\" {}\n", tr(lang, "Made by gpulab __man from gpulab's own help text.",
                                      "由 gpulab __man 依据 gpulab 自己的帮助文本生成。"));
  out += fmt::format(".TH GPULAB 1 \"\" \"gpulab {}\" \"{}\"\n", GPULAB_VERSION,
                     tr(lang, "User Commands", "用户命令"));
  out += fmt::format(".SH {}\n", tr(lang, "NAME", "名称"));
  std::string description = app.get_description();
  for (std::string_view prefix : {"gpulab: ", "gpulab："}) {
    if (description.starts_with(prefix)) description = description.substr(prefix.size());
  }
  out += "gpulab \\- " + roff_escape(description) + "\n";
  out += fmt::format(".SH {}\n", tr(lang, "SYNOPSIS", "概要"));
  out += fmt::format(".B gpulab\n[\\fI{}\\fR] \\fI{}\\fR [\\fI{}\\fR]\n",
                     tr(lang, "GLOBAL OPTIONS", "全局选项"), tr(lang, "COMMAND", "命令"),
                     tr(lang, "OPTIONS", "选项"));
  out += fmt::format(".br\n.B gpulab help\n[\\fI{}\\fR]\n", tr(lang, "COMMAND", "命令"));
  out += fmt::format(".SH {}\n", tr(lang, "GLOBAL OPTIONS", "全局选项"));
  for (const CLI::Option* opt : app.get_options({})) {
    if (opt->nonpositional() && !opt->get_group().empty()) out += man_option(opt, f);
  }
  out += fmt::format(".SH {}\n", tr(lang, "COMMANDS", "命令"));
  for (const CLI::App* sub : visible_commands(app)) {
    out += fmt::format(".SS \"gpulab {}\"\n{}\n", sub->get_name(),
                       roff_escape(sub->get_description()));
    for (const CLI::Option* opt : sub->get_options({})) {
      if (is_help_flag(*sub, opt) || opt->get_group().empty()) continue;
      out += man_option(opt, f);
    }
  }
  out += fmt::format(".SH {}\n", tr(lang, "EXIT STATUS", "退出状态"));
  out += roff_escape(tr(lang,
                        "0 success; 1 runtime failure (a result that does not verify, a kernel "
                        "error, a write that failed); 2 usage error (one line on stderr names the "
                        "option, the value and what was expected).",
                        "0 成功；1 运行时失败（结果未通过核对、内核出错、写入失败）；2 用法错误"
                        "（标准错误上一行说明选项、所给的值和期望的值）。")) +
         "\n";
  out += fmt::format(".SH {}\n", tr(lang, "ENVIRONMENT", "环境变量"));
  out += fmt::format(".TP\n.B LC_ALL, LC_MESSAGES, LANG\n{}\n",
                     roff_escape(tr(lang, "zh_* selects Chinese unless --lang says otherwise.",
                                    "以 zh_ 开头时使用中文，除非 --lang 另有指定。")));
  out += fmt::format(".TP\n.B NO_COLOR\n{}\n",
                     roff_escape(tr(lang, "When set and not empty, no colour (--color auto).",
                                    "设置且非空时不使用颜色（--color auto）。")));
  out += fmt::format(".SH {}\n", tr(lang, "SEE ALSO", "另见"));
  out += roff_escape(tr(lang,
                        "gpulab help COMMAND; gpulab learn (the lessons); the README and "
                        "docs/errata.md in /usr/share/doc/gpulab.",
                        "gpulab help COMMAND；gpulab learn（课程）；/usr/share/doc/gpulab 中的 "
                        "README 和 docs/errata.md。")) +
         "\n";
  return out;
}

}  // namespace gpulab
