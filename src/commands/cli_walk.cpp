// Walking a CLI::App (see cli_walk.hpp).
#include "commands/cli_walk.hpp"

namespace gpulab {

std::vector<const CLI::App*> visible_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

const CLI::App* find_command(const CLI::App& app, std::string_view name) {
  for (const CLI::App* sub : visible_commands(app)) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* opt : app.get_options({})) {
    if (opt->nonpositional() && opt->check_name(name)) return opt;
  }
  return nullptr;
}

}  // namespace gpulab
