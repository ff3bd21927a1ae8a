// One line for a command line the parser refused (see usage_error.hpp).
#include "commands/usage_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "commands/cli_walk.hpp"
#include "core/i18n_format.hpp"
#include "core/suggest.hpp"

namespace gpulab {

namespace {

// "exercise start": a command's name under gpulab, its parents' names first.
std::string full_name(const CLI::App* command) {
  std::string name;
  for (const CLI::App* c = command; c != nullptr && c->get_parent() != nullptr; c = c->get_parent())
    name = name.empty() ? c->get_name() : c->get_name() + " " + name;
  return name;
}

std::string help_hint(Lang lang, const CLI::App* command) {
  if (command == nullptr) return say(lang, " (see 'gpulab help')", "（见 'gpulab help'）");
  if (command->get_parent() != nullptr && command->get_parent()->get_parent() != nullptr)
    return say(lang, " (see 'gpulab {} --help')", "（见 'gpulab {} --help'）", full_name(command));
  return say(lang, " (see 'gpulab help {}')", "（见 'gpulab help {}'）", command->get_name());
}

// An option of the command or of a command it is under (gpulab's global options included).
const CLI::Option* find_option_in_chain(const CLI::App* command, const std::string& name) {
  for (const CLI::App* c = command; c != nullptr; c = c->get_parent())
    if (const CLI::Option* opt = find_option(*c, name)) return opt;
  return nullptr;
}

// Every spelling of every option of `app`: "--json", "-I", "--include".
std::vector<std::string> option_spellings(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options({})) {
    if (opt->get_group().empty()) continue;  // hidden
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

bool takes_value(const CLI::Option* opt) {
  return opt->get_expected_max() > 0;
}

// The values CLI11 takes for a switch written --json=VALUE.
bool switch_value(std::string_view v) {
  for (std::string_view ok : {"true", "false", "yes", "no", "on", "off", "1", "0"}) {
    if (v == ok) return true;
  }
  return false;
}

std::string value_name(const CLI::Option* opt) {
  // An argument that kept CLI11's "TEXT" is named by itself: "ID", not "TEXT".
  if (opt->get_positional() && (opt->get_type_name().empty() || opt->get_type_name() == "TEXT")) {
    std::string name = opt->get_name(true, false);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  }
  return opt->get_type_name().empty() ? std::string("VALUE") : opt->get_type_name();
}

std::string unknown_option(const CLI::App& app, const CLI::App* command, const std::string& typed,
                           Lang lang) {
  std::vector<std::string> names = option_spellings(app);
  for (const CLI::App* c = command; c != nullptr && c != &app; c = c->get_parent()) {
    const auto own = option_spellings(*c);
    names.insert(names.begin(), own.begin(), own.end());
  }
  const std::string where =
      command == nullptr ? std::string() : say(lang, " for {}", "（{} 命令）", full_name(command));
  // -p for --p: one dash too few.
  if (!typed.starts_with("--") && typed.size() > 1) {
    const std::string two = "-" + typed;
    for (const auto& n : names) {
      if (n == two) {
        return say(lang, "unknown option '{}'{}; did you mean {}? (long options take two dashes)",
                   "未知选项 '{}'{}；你是想输入 {} 吗？（长选项要写两个短横线）", typed, where,
                   two);
      }
    }
  }
  if (auto guess = closest_name(typed, names)) {
    return say(lang, "unknown option '{}'{}; did you mean {}?",
               "未知选项 '{}'{}；你是想输入 {} 吗？", typed, where, *guess) +
           help_hint(lang, command);
  }
  // An option of a command, typed before the command.
  if (command == nullptr) {
    for (const CLI::App* sub : visible_commands(app)) {
      if (find_option(*sub, typed) != nullptr) {
        return say(
            lang,
            "unknown option '{}' before the command; {} is an option of {}: write it after the "
            "command (gpulab {} {} ...)",
            "命令之前的选项 '{}' 无法识别；{} 是 {} 命令的选项：请写在命令之后（gpulab {} {} ...）",
            typed, typed, sub->get_name(), sub->get_name(), typed);
      }
    }
  }
  return say(lang, "unknown option '{}'{}", "未知选项 '{}'{}", typed, where) +
         help_hint(lang, command);
}

// `typed` where a command of `parent` was expected (gpulab's own, or a group's: exercise start).
std::string unknown_command(const CLI::App& parent, const std::string& typed, Lang lang) {
  std::vector<std::string> names;
  for (const CLI::App* sub : visible_commands(parent)) names.push_back(sub->get_name());
  const bool top = parent.get_parent() == nullptr;
  const std::string shown = top ? typed : full_name(&parent) + " " + typed;
  if (auto guess = closest_name(typed, names)) {
    return say(lang, "unknown command '{}'; did you mean {}?", "未知命令 '{}'；你是想输入 {} 吗？",
               shown, top ? *guess : full_name(&parent) + " " + *guess) +
           help_hint(lang, top ? nullptr : &parent);
  }
  return say(lang, "unknown command '{}'; the commands are: {}", "未知命令 '{}'；现有命令：{}",
             shown, fmt::join(names, ", "));
}

// How many words the positionals of `command` take; SIZE_MAX when one of them takes any number.
std::size_t positional_capacity(const CLI::App& command) {
  std::size_t n = 0;
  for (const CLI::Option* opt : command.get_options({})) {
    if (!opt->get_positional()) continue;
    const int max = opt->get_items_expected_max();
    if (max >= CLI::detail::expected_max_vector_size) return SIZE_MAX;
    n += static_cast<std::size_t>(max);
  }
  return n;
}

// Walks argv as gpulab reads it and returns the first thing wrong with it, if it finds one.
std::optional<std::string> scan(const CLI::App& app, int argc, const char* const* argv, Lang lang,
                                const CLI::App*& command, std::set<const CLI::Option*>& seen) {
  std::size_t positionals = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;  // the rest belongs to the program (gpulab run FILE -- ARGS)
    const bool looks_like_option = word.size() > 1 && word.front() == '-' &&
                                   !(word[1] >= '0' && word[1] <= '9') && word[1] != '.';
    if (looks_like_option) {
      const std::size_t eq = word.find('=');
      std::string name = word.substr(0, eq);
      bool attached = eq != std::string::npos;
      // -DNAME, -Iinclude: a short option with its value attached.
      if (!name.starts_with("--") && name.size() > 2) {
        name = name.substr(0, 2);
        attached = true;
      }
      const CLI::Option* opt = command != nullptr ? find_option_in_chain(command, name) : nullptr;
      if (opt == nullptr) opt = find_option(app, name);
      if (opt == nullptr) return unknown_option(app, command, word.substr(0, eq), lang);
      seen.insert(opt);
      if (!takes_value(opt)) {
        if (attached &&
            !switch_value(std::string_view(word).substr(std::min(eq + 1, word.size())))) {
          return say(lang, "{}: {} is a switch and takes no value; write {} alone",
                     "{}：{} 是开关，不带值；只写 {} 即可", word, name, name);
        }
        continue;
      }
      if (attached) continue;
      if (i + 1 >= argc) {
        return say(lang, "{} needs a value ({}) after it", "{} 后面需要一个值（{}）", name,
                   value_name(opt));
      }
      const std::string value = argv[++i];
      if (command == nullptr && find_command(app, value) != nullptr) {
        return say(
            lang,
            "{} {}: {} takes {}, and '{}' is a command; give the value first, then the "
            "command (e.g. gpulab {} {} {})",
            "{} {}：{} 的值应为 {}，而 '{}' 是命令；请先写值，再写命令（例如 gpulab {} {} {}）",
            name, value, name, value_name(opt), value, name,
            value_name(opt).substr(0, value_name(opt).find('|')), value);
      }
      continue;
    }
    if (command == nullptr) {
      command = find_command(app, word);
      if (command == nullptr) return unknown_command(app, word, lang);
      continue;
    }
    // A command group (exercise): its commands before any argument.
    if (positionals == 0 && !visible_commands(*command).empty()) {
      if (const CLI::App* sub = find_command(*command, word)) {
        command = sub;
        continue;
      }
      if (positional_capacity(*command) == 0) return unknown_command(*command, word, lang);
    }
    if (positionals < positional_capacity(*command)) {
      ++positionals;
      continue;
    }
    if (const CLI::App* second = find_command(app, word)) {
      return say(lang, "one command at a time: '{}' and then '{}'",
                 "一次只能运行一个命令：'{}' 之后又有 '{}'", command->get_name(),
                 second->get_name());
    }
    std::vector<std::string> takes;
    for (const CLI::Option* opt : command->get_options({})) {
      if (opt->get_positional()) takes.push_back(opt->get_type_name());
    }
    if (takes.empty()) {
      return say(lang, "unexpected argument '{}' for {}: it takes options only",
                 "{1} 命令不接受参数 '{0}'：它只接受选项", word, full_name(command));
    }
    return say(lang, "unexpected argument '{}' for {}: it takes one {}",
               "{1} 命令多了参数 '{0}'：它只接受一个 {2}", word, full_name(command),
               fmt::join(takes, " "));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> usage_problem(const CLI::App& app, int argc, const char* const* argv,
                                         Lang lang) {
  const CLI::App* command = nullptr;
  std::set<const CLI::Option*> seen;
  return scan(app, argc, argv, lang, command, seen);
}

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc,
                                const char* const* argv, Lang lang) {
  const CLI::App* command = nullptr;
  std::set<const CLI::Option*> seen;
  if (auto problem = scan(app, argc, argv, lang, command, seen)) return *problem;
  if (command == nullptr) {
    return say(lang, "no command given; try gpulab help, or gpulab learn to start the course",
               "没有给出命令；试试 gpulab help，或者用 gpulab learn 开始课程");
  }
  for (const CLI::Option* opt : command->get_options({})) {
    if (!opt->get_required() || seen.contains(opt)) continue;
    if (opt->get_positional()) {
      if (opt->count() > 0) continue;
      return say(lang, "{} needs {}: {}", "{} 命令需要 {}：{}", full_name(command), value_name(opt),
                 opt->get_description());
    }
    return say(lang, "{} needs {} {}: {}", "{} 命令需要 {} {}：{}", full_name(command),
               opt->get_name(false, true), value_name(opt), opt->get_description());
  }
  // A group called without one of its commands when it needs one.
  if (const auto subs = visible_commands(*command);
      !subs.empty() && command->get_require_subcommand_min() > 0) {
    std::vector<std::string> names;
    for (const CLI::App* sub : subs) names.push_back(sub->get_name());
    return say(lang, "{} needs a command: {}", "{} 命令后面需要一个子命令：{}", full_name(command),
               fmt::join(names, ", "));
  }
  return say(lang, "{}", "{}", e.what()) + help_hint(lang, command);
}

}  // namespace gpulab
