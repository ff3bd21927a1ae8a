// Finding the program's own headers (see headers.hpp).
#include "run/headers.hpp"

#include <set>
#include <string>

#include "run/rewrite.hpp"

namespace gpulab::run {

namespace fs = std::filesystem;

namespace {

bool regular(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

fs::path normal(const fs::path& p) {
  return fs::absolute(p).lexically_normal();
}

}  // namespace

bool system_header(const fs::path& p) {
  const std::string s = p.string();
  return s.starts_with("/usr/") || s.starts_with("/opt/");
}

std::vector<fs::path> user_headers(const fs::path& file, std::string_view text,
                                   const HeaderSearch& search,
                                   const std::function<std::string(const fs::path&)>& read,
                                   std::size_t limit) {
  std::vector<fs::path> found;
  std::set<fs::path> seen = {normal(file)};
  // Where the compiler looks, in its order: quoted names in the including file's folder and the
  // -iquote folders first; then, for both kinds, the kit (the first -I) and the user's -I folders.
  const auto resolve = [&](const fs::path& from, const Include& inc) -> fs::path {
    const fs::path name = inc.name;
    if (name.is_absolute()) return regular(name) ? normal(name) : fs::path();
    if (inc.quoted) {
      if (regular(from.parent_path() / name)) return normal(from.parent_path() / name);
      for (const fs::path& d : search.quote_dirs) {
        if (regular(d / name)) return normal(d / name);
      }
    }
    if (!search.kit_include.empty() && regular(search.kit_include / name)) return {};
    for (const fs::path& d : search.include_dirs) {
      if (regular(d / name)) return normal(d / name);
    }
    return {};  // the system's, or missing: the compiler's to find or report
  };
  std::vector<std::pair<fs::path, std::string>> pending = {{normal(file), std::string(text)}};
  while (!pending.empty() && found.size() < limit) {
    const auto [from, source] = std::move(pending.back());
    pending.pop_back();
    for (const Include& inc : includes_of(source)) {
      const fs::path header = resolve(from, inc);
      if (header.empty() || system_header(header) || !seen.insert(header).second) continue;
      if (!search.kit_include.empty() &&
          header.string().starts_with(normal(search.kit_include).string())) {
        continue;
      }
      found.push_back(header);
      if (found.size() >= limit) break;
      pending.emplace_back(header, read(header));
    }
  }
  return found;
}

fs::path shadow_path(const fs::path& root, const fs::path& original) {
  return root / normal(original).relative_path();
}

fs::path original_of(const fs::path& root, const fs::path& shadowed) {
  const std::string r = normal(root).string() + "/";
  const std::string s = shadowed.lexically_normal().string();
  if (!s.starts_with(r)) return {};
  return fs::path("/") / s.substr(r.size());
}

}  // namespace gpulab::run
