// Kernels as coroutines and yields in spin loops (see split.hpp).
//
// A kernel whose body calls a barrier or a warp collective
//
//   __global__ void k(const float* in, int n) { ... __syncthreads(); ... return; ... }
//
// becomes, on the same lines,
//
//   __global__ void k(const float* gpulab_arg0_, int gpulab_arg1_) { ::gpulab::simt::co::start(
//   [](co::Arg<decltype(gpulab_arg0_)> gpulab_co0_, co::Arg<decltype(gpulab_arg1_)> gpulab_co1_)
//   -> ::gpulab::simt::co::Thread { decltype(gpulab_arg0_)& in = gpulab_co0_.get(); ...
//   ... co_await ::gpulab::simt::co::syncthreads(); ... co_return; ... }(gpulab_arg0_,
//   gpulab_arg1_)); }
//
// The kernel keeps its name, type and address (every launch path calls it per CUDA thread as
// before); the parameters' bytes are the coroutine's own (no constructor or destructor runs, as
// on a GPU), so they live in its frame, and so do the locals that live across a barrier: the
// compiler, not this file, decides what they are.
#include "run/split.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <vector>

#include "run/rewrite.hpp"

namespace gpulab::run {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The intrinsics that make a thread wait for others, and their awaitable forms
// (simt/coroutine.hpp).
struct Collective {
  std::string_view intrinsic, awaitable;
};
constexpr std::array<Collective, 20> kCollectives{{
    {"__syncthreads", "syncthreads"},
    {"__syncthreads_count", "syncthreads_count"},
    {"__syncthreads_and", "syncthreads_and"},
    {"__syncthreads_or", "syncthreads_or"},
    {"__syncwarp", "syncwarp"},
    {"__shfl_sync", "shfl_sync"},
    {"__shfl_up_sync", "shfl_up_sync"},
    {"__shfl_down_sync", "shfl_down_sync"},
    {"__shfl_xor_sync", "shfl_xor_sync"},
    {"__ballot_sync", "ballot_sync"},
    {"__any_sync", "any_sync"},
    {"__all_sync", "all_sync"},
    {"__activemask", "activemask"},
    {"__match_any_sync", "match_any_sync"},
    {"__match_all_sync", "match_all_sync"},
    {"__reduce_add_sync", "reduce_add_sync"},
    {"__reduce_min_sync", "reduce_min_sync"},
    {"__reduce_max_sync", "reduce_max_sync"},
    {"__reduce_and_sync", "reduce_and_sync"},
    {"__reduce_or_sync", "reduce_or_sync"},
}};
constexpr std::string_view kReduceXor = "__reduce_xor_sync";

std::optional<std::string_view> awaitable_of(std::string_view word) {
  for (const Collective& c : kCollectives) {
    if (c.intrinsic == word) return c.awaitable;
  }
  if (word == kReduceXor) return std::string_view("reduce_xor_sync");
  return std::nullopt;
}

// Words that keep a kernel on fibers: its code would not compile as a coroutine, or it waits in
// code this file does not transform (cooperative groups).
bool refused_word(std::string_view w) {
  static constexpr std::array<std::string_view, 12> kWords{
      "co_await",  "co_return",         "co_yield",        "cooperative_groups",
      "cg",        "this_thread_block", "tiled_partition", "coalesced_threads",
      "this_grid", "grid_group",        "thread_block",    "labeled_partition"};
  for (std::string_view k : kWords) {
    if (w == k) return true;
  }
  return false;
}

bool type_word(std::string_view w) {
  static constexpr std::array<std::string_view, 16> kWords{
      "int",  "unsigned", "signed", "char",     "short",  "long",         "float",  "double",
      "bool", "void",     "const",  "volatile", "size_t", "__restrict__", "struct", "auto"};
  for (std::string_view k : kWords) {
    if (w == k) return true;
  }
  return false;
}

class Splitter {
 public:
  Splitter(std::string_view s, bool coroutines)
      : s_(s), code_(code_mask(s)), coroutines_(coroutines) {}

  Split run() {
    Split out;
    for (std::size_t i = 0; i < s_.size(); ++i) {
      if (!code_[i] || !ident_char(s_[i]) || (i > 0 && ident_char(s_[i - 1]))) continue;
      std::size_t e = i;
      while (e < s_.size() && ident_char(s_[e])) ++e;
      const std::string_view word = s_.substr(i, e - i);
      if (word == "__global__" || word == "__device__") {
        if (const auto f = function_after(i, e)) {
          if (word == "__global__" && coroutines_ && transform_kernel(*f)) ++out.kernels;
          out.spin_loops += yield_in_spin_loops(f->body + 1, f->end);
          i = f->end;
          continue;
        }
      }
      i = e - 1;
    }
    out.text.reserve(s_.size() + 256 * edits_.size());
    std::size_t copied = 0;
    for (const auto& [at, edit] : edits_) {
      out.text.append(s_.substr(copied, at - copied));
      out.text += edit.text;
      copied = at + edit.erase;
    }
    out.text.append(s_.substr(copied));
    return out;
  }

 private:
  struct Function {
    std::size_t params_open = 0, params_close = 0, body = 0, end = 0;
  };
  struct Edit {
    std::size_t erase = 0;  // characters of the source replaced
    std::string text;
  };

  bool at(std::size_t i, std::string_view w) const { return s_.compare(i, w.size(), w) == 0; }

  // Two insertions at one place are kept in the order made.
  void add_edit(std::size_t at, std::size_t erase, std::string text) {
    Edit& e = edits_[at];
    e.erase = std::max(e.erase, erase);
    e.text += text;
  }

  std::size_t skip_space(std::size_t i) const {
    while (i < s_.size() && (std::isspace(static_cast<unsigned char>(s_[i])) || !code_[i])) ++i;
    return i;
  }
  // One past the last code character before `i` that is not a space; 0 if none.
  std::size_t skip_space_back(std::size_t i) const {
    while (i > 0 && (std::isspace(static_cast<unsigned char>(s_[i - 1])) || !code_[i - 1])) --i;
    return i;
  }

  std::size_t match_forward(std::size_t open, char close) const {
    const char o = s_[open];
    int depth = 0;
    for (std::size_t k = open; k < s_.size(); ++k) {
      if (!code_[k]) continue;
      if (s_[k] == o) ++depth;
      if (s_[k] == close && --depth == 0) return k;
    }
    return std::string_view::npos;
  }

  std::size_t match_back(std::size_t close, char open) const {
    const char c = s_[close];
    int depth = 0;
    for (std::size_t k = close + 1; k-- > 0;) {
      if (!code_[k]) continue;
      if (s_[k] == c) ++depth;
      if (s_[k] == open && --depth == 0) return k;
    }
    return std::string_view::npos;
  }

  bool preprocessor_line(std::size_t pos) const {
    std::size_t b = pos;
    while (b > 0 && s_[b - 1] != '\n') --b;
    while (b < s_.size() && (s_[b] == ' ' || s_[b] == '\t')) ++b;
    return b < s_.size() && s_[b] == '#';
  }

  std::string_view word_before(std::size_t pos) const {
    const std::size_t e = skip_space_back(pos);
    std::size_t b = e;
    while (b > 0 && ident_char(s_[b - 1])) --b;
    return s_.substr(b, e - b);
  }

  // After `__global__` or `__device__` at [word, after): a function definition `... name(...) {`.
  std::optional<Function> function_after(std::size_t word, std::size_t after) const {
    if (preprocessor_line(word)) return std::nullopt;
    std::size_t k = skip_space(after);
    while (k < s_.size()) {
      if (s_[k] == '(') {
        // __launch_bounds__(...) and the like, or the parameter list.
        const std::string_view name = word_before(k);
        const std::size_t close = match_forward(k, ')');
        if (close == std::string_view::npos) return std::nullopt;
        if (name.starts_with("__")) {
          k = skip_space(close + 1);
          continue;
        }
        if (name.empty()) return std::nullopt;
        const std::size_t body = skip_space(close + 1);
        if (body >= s_.size() || s_[body] != '{') return std::nullopt;  // a declaration
        const std::size_t end = match_forward(body, '}');
        if (end == std::string_view::npos) return std::nullopt;
        return Function{k, close, body, end};
      }
      if (s_[k] == ';' || s_[k] == '{' || s_[k] == '=' || s_[k] == '}') return std::nullopt;
      ++k;
    }
    return std::nullopt;
  }

  struct Parameter {
    std::string name;
    std::size_t at = 0;  // where the name stands in the source
  };

  // The parameters' names, or nothing when one cannot be named for sure.
  std::optional<std::vector<Parameter>> parameter_names(const Function& f) const {
    std::vector<Parameter> names;
    std::size_t begin = f.params_open + 1;
    int depth = 0;
    const auto one = [&](std::size_t b, std::size_t e) -> bool {
      std::string text;
      for (std::size_t k = b; k < e; ++k) text += code_[k] ? s_[k] : ' ';
      std::size_t last = text.find_last_not_of(" \t\r\n");
      if (last == std::string::npos) return false;
      text.resize(last + 1);
      if (text.find('=') != std::string::npos || text.find("...") != std::string::npos ||
          text.find('(') != std::string::npos) {
        return false;
      }
      // An array parameter: the name stands before its first '['.
      if (const std::size_t bracket = text.find('['); bracket != std::string::npos) {
        text.resize(bracket);
        last = text.find_last_not_of(" \t\r\n");
        if (last == std::string::npos) return false;
        text.resize(last + 1);
      }
      std::size_t nb = text.size();
      while (nb > 0 && ident_char(text[nb - 1])) --nb;
      const std::string name = text.substr(nb);
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || type_word(name)) {
        return false;
      }
      // Something (the type) must come before the name.
      if (text.find_first_not_of(" \t\r\n") >= nb) return false;
      names.push_back({name, b + nb});
      return true;
    };
    for (std::size_t k = begin; k < f.params_close; ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(' || c == '[' || c == '<' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '>' || c == '}') --depth;
      if (c == ',' && depth == 0) {
        if (!one(begin, k)) return std::nullopt;
        begin = k + 1;
      }
    }
    std::string rest;
    for (std::size_t k = begin; k < f.params_close; ++k) {
      if (code_[k] && !std::isspace(static_cast<unsigned char>(s_[k]))) rest += s_[k];
    }
    if (rest.empty() || rest == "void") {
      if (!names.empty()) return std::nullopt;  // `f(int a, )`
      return names;
    }
    if (!one(begin, f.params_close)) return std::nullopt;
    return names;
  }

  // A '[' that opens a lambda (or an attribute), not a subscript.
  bool lambda_at(std::size_t k) const {
    const std::size_t before = skip_space_back(k);
    if (before == 0) return true;
    const char p = s_[before - 1];
    return !(ident_char(p) || p == ')' || p == ']' || p == '>');
  }

  bool transform_kernel(const Function& f) {
    struct Site {
      std::size_t at, length;
      std::string_view awaitable;
    };
    std::vector<Site> collectives;
    std::vector<std::size_t> returns;
    // `extern __shared__ T a[];`: g++ takes an array of unknown bound in a coroutine for a
    // variable-length one and refuses it, so the declaration moves to the kernel's own body, ahead
    // of the coroutine, which uses it as a thread_local of the enclosing function.
    std::vector<std::pair<std::size_t, std::size_t>> dynamic_shared;  // [extern, ';']
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '[' && lambda_at(k)) return false;
      if (!ident_char(s_[k]) || ident_char(s_[k - 1])) continue;
      std::size_t e = k;
      while (e < f.end && ident_char(s_[e])) ++e;
      const std::string_view word = s_.substr(k, e - k);
      if (refused_word(word)) return false;
      if (word == "return") {
        returns.push_back(k);
      } else if (word == "extern") {
        const std::size_t end = extern_shared_end(e, f.end);
        if (end == std::string_view::npos) return false;
        dynamic_shared.emplace_back(k, end);
        e = end + 1;
      } else if (const auto awaitable = awaitable_of(word)) {
        // Called by its plain name: not through a pointer, a member or a qualified name.
        const std::size_t next = skip_space(e);
        if (next >= f.end || s_[next] != '(') return false;
        const std::size_t before = skip_space_back(k);
        if (before > 0 && (s_[before - 1] == ':' || s_[before - 1] == '.' ||
                           s_[before - 1] == '>' || s_[before - 1] == '&')) {
          return false;
        }
        if (preprocessor_line(k)) return false;
        collectives.push_back({k, e - k, *awaitable});
      }
      k = e - 1;
    }
    if (collectives.empty()) return false;  // the plain loop is already the fast path
    const auto names = parameter_names(f);
    if (!names) return false;

    // The kernel's own parameters are renamed; the coroutine takes each as its bytes (co::Arg, as
    // CUDA passes a kernel's arguments: no copy constructor or destructor runs per thread) and
    // binds the names the body uses to its frame's copies.
    std::string params, binds, args;
    for (std::size_t p = 0; p < names->size(); ++p) {
      const Parameter& param = (*names)[p];
      const std::string n = std::to_string(p);
      const std::string outer = "gpulab_arg" + n + "_";
      add_edit(param.at, param.name.size(), outer);
      params += (params.empty() ? "" : ", ") + std::string("::gpulab::simt::co::Arg<decltype(") +
                outer + ")> gpulab_co" + n + "_";
      binds += " decltype(" + outer + ")& " + param.name + " = gpulab_co" + n + "_.get();";
      args += (args.empty() ? "" : ", ") + outer;
    }

    std::string hoisted;
    for (const auto& [b, e] : dynamic_shared) {
      std::string blank;
      for (std::size_t k = b; k <= e; ++k) {
        const char c = s_[k];
        hoisted += code_[k] && c != '\n' && c != '\r' ? c : ' ';
        if (c == '\n') blank += '\n';
      }
      hoisted += ' ';
      add_edit(b, e + 1 - b, blank);
    }
    add_edit(f.body + 1, 0,
             " " + hoisted + "::gpulab::simt::co::start([](" + params +
                 ") -> ::gpulab::simt::co::Thread {" + binds);
    for (const Site& c : collectives) {
      add_edit(c.at, c.length, "co_await ::gpulab::simt::co::" + std::string(c.awaitable));
    }
    for (const std::size_t r : returns) add_edit(r, 6, "co_return");
    add_edit(f.end, 0, "}(" + args + ")); ");
    return true;
  }

  // After `extern` at `after_word` (in a kernel body ending at `end`): the ';' that ends an
  // `extern __shared__ T name[];` declaration (the qualifiers in any order, `extern T __shared__
  // name[];` too); npos for any other extern declaration.
  std::size_t extern_shared_end(std::size_t after_word, std::size_t end) const {
    bool shared = false;
    for (std::size_t k = after_word; k < end; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '_' && !ident_char(s_[k - 1]) && at(k, "__shared__") &&
          !ident_char(s_[k + 10])) {
        shared = true;
      }
      if (s_[k] == '{' || s_[k] == '}' || s_[k] == '=' || s_[k] == ',') break;
      if (s_[k] == ';') {
        const std::size_t last = skip_space_back(k);
        return shared && last > 0 && s_[last - 1] == ']' ? k : std::string_view::npos;
      }
    }
    return std::string_view::npos;
  }

  // `while (cond);`, `while (cond) {}` and `do {} while (cond);` in [begin, end): the waiting
  // thread yields to the others of its block in each round (after a few).
  int yield_in_spin_loops(std::size_t begin, std::size_t end) {
    static constexpr std::string_view kYield = " ::gpulab::simt::detail::spin_wait(); ";
    int found = 0;
    for (std::size_t k = begin; k + 5 < end; ++k) {
      if (!code_[k] || !at(k, "while") || (k > 0 && ident_char(s_[k - 1])) ||
          ident_char(s_[k + 5])) {
        continue;
      }
      if (preprocessor_line(k)) continue;
      const std::size_t open = skip_space(k + 5);
      if (open >= end || s_[open] != '(') continue;
      const std::size_t close = match_forward(open, ')');
      if (close == std::string_view::npos || close >= end) continue;
      const std::size_t before = skip_space_back(k);
      const char prev = before > 0 ? s_[before - 1] : ';';
      if (prev == '}') {
        // `do { ... } while (cond);`: yield only in an empty body.
        const std::size_t body_open = match_back(before - 1, '{');
        if (body_open == std::string_view::npos || word_before(body_open) != "do") continue;
        if (skip_space(body_open + 1) != before - 1) continue;
        add_edit(body_open + 1, 0, std::string(kYield));
        ++found;
        continue;
      }
      if (statement_is_do(before)) continue;  // `do x(); while (cond);`
      const std::size_t after = skip_space(close + 1);
      if (after >= end) continue;
      if (s_[after] == ';') {
        add_edit(after, 1, "{" + std::string(kYield) + "}");
        ++found;
      } else if (s_[after] == '{' && skip_space(after + 1) < end &&
                 s_[skip_space(after + 1)] == '}') {
        add_edit(after + 1, 0, std::string(kYield));
        ++found;
      }
    }
    return found;
  }

  // Whether the statement that ends just before `pos` (with a ';') begins with `do`.
  bool statement_is_do(std::size_t pos) const {
    if (pos == 0 || s_[pos - 1] != ';') return false;
    int depth = 0;
    std::size_t k = pos - 1;
    while (k > 0) {
      --k;
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == ')' || c == ']') ++depth;
      if (c == '(' || c == '[') --depth;
      if (depth == 0 && (c == ';' || c == '{' || c == '}')) break;
    }
    const std::size_t first = skip_space(k + 1);
    return at(first, "do") && !ident_char(s_[first + 2]);
  }

  std::string_view s_;
  std::vector<bool> code_;
  bool coroutines_;
  std::map<std::size_t, Edit> edits_;
};

}  // namespace

Split split_kernels(std::string_view source, bool coroutines) {
  return Splitter(source, coroutines).run();
}

}  // namespace gpulab::run
