// Shell completion that asks the binary (see complete.hpp).
#include "commands/complete.hpp"

#include <map>
#include <string_view>

#include "commands/cli_walk.hpp"

namespace gpulab {

namespace {

std::map<const CLI::Option*, std::function<std::vector<std::string>()>>& completers() {
  static std::map<const CLI::Option*, std::function<std::vector<std::string>()>> map;
  return map;
}

// What an option's value can be: its completer, the choices its type name lists ("auto|gpu|cpu"),
// or file names when it names a file or folder.
std::vector<std::string> values_of(const CLI::Option* opt) {
  if (auto it = completers().find(opt); it != completers().end()) return it->second();
  const std::string& type = opt->get_type_name();
  if (type.find('|') != std::string::npos) {
    std::vector<std::string> choices;
    std::size_t start = 0;
    while (true) {
      const std::size_t bar = type.find('|', start);
      choices.push_back(type.substr(start, bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    return choices;
  }
  if (type.starts_with("FILE") || type == "DIR") return {"@file"};
  return {};
}

void add_options(const CLI::App& app, std::vector<std::string>& out) {
  for (const CLI::Option* opt : app.get_options({})) {
    if (!opt->nonpositional() || opt->get_group().empty()) continue;
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
  }
}

}  // namespace

void set_completer(CLI::Option* opt, std::function<std::vector<std::string>()> values) {
  completers()[opt] = std::move(values);
}

std::vector<std::string> completions(const CLI::App& app, const std::vector<std::string>& words) {
  const std::string current = words.empty() ? std::string() : words.back();
  const CLI::App* command = nullptr;
  const CLI::Option* wants_value = nullptr;
  std::size_t positionals = 0;
  bool after_dashes = false;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    if (wants_value != nullptr) {
      wants_value = nullptr;
      continue;
    }
    if (w == "--") {
      after_dashes = true;
      continue;
    }
    if (w.size() > 1 && w.front() == '-' && w.find('=') == std::string::npos) {
      const CLI::Option* opt = command != nullptr ? find_option(*command, w) : nullptr;
      if (opt == nullptr) opt = find_option(app, w);
      if (opt != nullptr && opt->get_expected_max() > 0) wants_value = opt;
      continue;
    }
    if (command == nullptr) {
      command = find_command(app, w);
    } else if (const CLI::App* sub = positionals == 0 ? find_command(*command, w) : nullptr) {
      command = sub;  // a command of a command: gpulab exercise start
    } else {
      ++positionals;
    }
  }
  std::vector<std::string> all;
  if (after_dashes) {
    all.push_back("@file");
  } else if (wants_value != nullptr) {
    all = values_of(wants_value);
  } else if (current.starts_with("-")) {
    if (command != nullptr) add_options(*command, all);
    add_options(app, all);
    all.push_back("--help");
  } else if (command == nullptr) {
    for (const CLI::App* sub : visible_commands(app)) all.push_back(sub->get_name());
  } else if (positionals == 0 && !visible_commands(*command).empty()) {
    for (const CLI::App* sub : visible_commands(*command)) all.push_back(sub->get_name());
  } else {
    std::size_t skipped = 0;
    for (const CLI::Option* opt : command->get_options({})) {
      if (!opt->get_positional()) continue;
      if (skipped++ < positionals && opt->get_items_expected_max() == 1) continue;
      all = values_of(opt);
      break;
    }
  }
  std::vector<std::string> out;
  for (auto& c : all) {
    if (c == "@file" || c.starts_with(current)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpulab
