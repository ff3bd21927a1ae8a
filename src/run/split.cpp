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
#include <set>
#include <vector>

#include "run/rewrite.hpp"

namespace gpulab::run {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

template <std::size_t N>
bool one_of(std::string_view w, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), w) != words.end();
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
  return one_of(w, kWords);
}

bool type_word(std::string_view w) {
  static constexpr std::array<std::string_view, 16> kWords{
      "int",  "unsigned", "signed", "char",     "short",  "long",         "float",  "double",
      "bool", "void",     "const",  "volatile", "size_t", "__restrict__", "struct", "auto"};
  return one_of(w, kWords);
}

// Words whose statement the region form cannot keep as it is.
constexpr std::array<std::string_view, 9> kRegionRefusedWords{
    "goto", "throw", "asm", "__asm__", "setjmp", "longjmp", "try", "catch", "co_await"};

// Words a thread-uniform expression may hold besides the names checked one by one.
constexpr std::array<std::string_view, 22> kUniformWords{
    "int",     "unsigned", "signed",   "char",    "short",    "long",        "float",    "double",
    "bool",    "size_t",   "true",     "false",   "sizeof",   "static_cast", "blockIdx", "blockDim",
    "gridDim", "warpSize", "uint32_t", "int64_t", "uint64_t", "int32_t"};

// Words that do not begin a declaration of a local at a statement's start.
constexpr std::array<std::string_view, 16> kStatementWords{
    "if",   "else",    "for",      "while", "do",      "switch", "return",        "break",
    "case", "default", "continue", "goto",  "typedef", "using",  "static_assert", "__syncthreads"};

// Words a local's type may not hold (its type then cannot be written again, or its storage is
// no automatic variable's).
constexpr std::array<std::string_view, 14> kUntypableWords{
    "auto",   "decltype", "struct",       "class",      "enum",      "union",    "register",
    "static", "extern",   "thread_local", "__shared__", "constexpr", "typename", "operator"};

class Splitter {
 public:
  Splitter(std::string_view s, bool coroutines, bool regions)
      : s_(s), code_(code_mask(s)), coroutines_(coroutines), regions_(coroutines && regions) {
    find_group_namespaces();
    find_macros();
  }

  // The device functions of this text that wait or may (see find_waiting_functions).
  std::set<std::string, std::less<>> waiting_functions() {
    find_waiting_functions();
    return waiting_functions_;
  }

  Split run(std::string_view elsewhere) {
    Split out;
    if (!elsewhere.empty()) {
      Splitter other(elsewhere, true, true);
      // A kernel here may call a device function of a user header or of another file of the
      // program: one that waits there keeps the kernel off region loops as one here does.
      if (regions_) waiting_functions_ = other.waiting_functions();
      // `namespace cg = cooperative_groups;` may stand in a header.
      group_namespaces_.merge(other.group_namespaces_);
      using_groups_ = using_groups_ || other.using_groups_;
      // Its macros, which a kernel here may name.
      for (const auto& [name, body] : other.macros_) macros_[name] += " " + body;
    }
    if (regions_) find_waiting_functions();
    for (std::size_t i = 0; i < s_.size(); ++i) {
      if (!word_start(i)) continue;
      const std::size_t e = word_end(i);
      const std::string_view word = s_.substr(i, e - i);
      if (word == "__global__" || word == "__device__") {
        if (const auto f = function_after(i, e)) {
          if (word == "__global__" && coroutines_) {
            if (regions_ && region_kernel(*f)) {
              ++out.kernels;
              ++out.regions;
            } else if (transform_kernel(*f)) {
              ++out.kernels;
            }
          }
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
    return matching_close(s_, code_, open, close);
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
    std::size_t at = 0;    // where the name stands in the source
    bool pointer = false;  // a pointer, reference or array: what it points at may change
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
      const bool array = text.find('[') != std::string::npos;
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
      const bool pointer = array || text.find_first_of("*&") < nb;
      names.push_back({name, b + nb, pointer});
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

  // ---- Cooperative groups' block barrier --------------------------------------------------------
  //
  // `b.sync();`, `NS::sync(b);` and `NS::this_thread_block().sync();`, where the kernel declares
  // `NS::thread_block b = NS::this_thread_block();` (or `auto b = ...`; `const` too) and NS is
  // the cooperative_groups namespace or a name of it (`namespace cg = cooperative_groups;`), or
  // nothing after `using namespace cooperative_groups;`, are __syncthreads() itself
  // (simt/cooperative_groups.hpp), and a thread_block holds no state.

  static constexpr std::size_t npos = std::string_view::npos;

  // The names of the cooperative_groups namespace in this text, and whether it is used whole.
  void find_group_namespaces() {
    constexpr std::string_view kName = "cooperative_groups";
    for (std::size_t k = s_.find(kName); k != npos; k = s_.find(kName, k + 1)) {
      if (!word_start(k) || word_end(k) != k + kName.size()) continue;
      std::size_t b = skip_space_back(k);
      if (b >= 2 && s_[b - 1] == ':' && s_[b - 2] == ':') b = skip_space_back(b - 2);
      if (b > 0 && s_[b - 1] == '=') {
        const std::string_view alias = word_before(b - 1);
        const std::size_t alias_at = skip_space_back(b - 1) - alias.size();
        if (!alias.empty() && word_before(alias_at) == "namespace")
          group_namespaces_.emplace(alias);
      } else if (word_before(b) == "namespace" &&
                 word_before(skip_space_back(b) - std::string_view("namespace").size()) ==
                     "using") {
        using_groups_ = true;
      }
    }
  }

  // The word w at k: the position after it and the spaces after it; npos if it is not there.
  std::size_t word_at(std::size_t k, std::string_view w) const {
    if (k >= s_.size() || !word_start(k) || word_end(k) != k + w.size() || !at(k, w)) return npos;
    return skip_space(k + w.size());
  }
  // The code characters p at k, likewise.
  std::size_t punct_at(std::size_t k, std::string_view p) const {
    if (k >= s_.size() || !code_[k] || !at(k, p)) return npos;
    return skip_space(k + p.size());
  }
  // After `NS::` at k (or at k itself after `using namespace cooperative_groups;`); npos if none.
  std::size_t groups_qualifier(std::size_t k) const {
    if (k >= s_.size()) return npos;
    if (word_start(k) && group_namespaces_.contains(s_.substr(k, word_end(k) - k))) {
      return punct_at(skip_space(word_end(k)), "::");
    }
    return using_groups_ ? k : npos;
  }
  std::string_view word_here(std::size_t k) const {
    return k < s_.size() && word_start(k) ? s_.substr(k, word_end(k) - k) : std::string_view();
  }

  // `[const] NS::thread_block b = NS::this_thread_block();` at k: its ';' (b added to names).
  std::size_t group_declaration(std::size_t k, std::set<std::string, std::less<>>& names) const {
    const std::size_t after_const = word_at(k, "const");
    const std::size_t p = after_const == npos ? k : after_const;
    std::size_t name = word_at(p, "auto");
    if (name == npos) name = word_at(groups_qualifier(p), "thread_block");
    const std::string_view b = word_here(name);
    if (b.empty() || type_word(b) || refused_word(b)) return npos;
    std::size_t q =
        word_at(groups_qualifier(punct_at(skip_space(name + b.size()), "=")), "this_thread_block");
    q = punct_at(punct_at(q, "("), ")");
    if (q >= s_.size() || s_[q] != ';') return npos;
    names.emplace(b);
    return q;
  }

  // A block's sync at k, `b.sync()`, `NS::sync(b)` or `NS::this_thread_block().sync()` before a
  // ';': that ';'.
  std::size_t group_sync(std::size_t k, const std::set<std::string, std::less<>>& names) const {
    if (member_at(k)) return npos;
    std::size_t q = npos;
    if (names.contains(word_here(k))) {
      q = word_at(punct_at(skip_space(word_end(k)), "."), "sync");
      q = punct_at(punct_at(q, "("), ")");
    }
    if (q == npos) {
      const std::size_t p = punct_at(word_at(groups_qualifier(k), "sync"), "(");
      if (names.contains(word_here(p))) q = punct_at(skip_space(word_end(p)), ")");
    }
    if (q == npos) {
      std::size_t p = word_at(groups_qualifier(k), "this_thread_block");
      p = word_at(punct_at(punct_at(punct_at(p, "("), ")"), "."), "sync");
      q = punct_at(punct_at(p, "("), ")");
    }
    return q < s_.size() && s_[q] == ';' ? q : npos;
  }

  // A kernel's block syncs and block declarations (each from its first character to its ';'), or
  // nothing when the kernel names cooperative groups in any other way.
  struct BlockGroups {
    std::map<std::size_t, std::size_t> syncs, declarations;
    std::set<std::string, std::less<>> names;  // the groups declared
  };
  std::optional<BlockGroups> block_groups(const Function& f) const {
    BlockGroups g;
    std::set<std::string, std::less<>> names;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t before = skip_space_back(k);
      const char prev = before > 0 ? s_[before - 1] : ';';
      if (prev == ';' || prev == '{' || prev == '}') {
        if (const std::size_t semi = group_declaration(k, names); semi < f.end) {
          g.declarations[k] = semi;
          k = semi;
          continue;
        }
      }
      if (const std::size_t semi = group_sync(k, names); semi < f.end) {
        g.syncs[k] = semi;
        k = semi;
        continue;
      }
      const std::string_view w = s_.substr(k, word_end(k) - k);
      if ((refused_word(w) && !w.starts_with("co_")) || group_namespaces_.contains(w))
        return std::nullopt;
      k = word_end(k) - 1;
    }
    g.names = std::move(names);
    return g;
  }

  // `b.thread_rank()` and the like at k (the method's name): a block group's query, which reads
  // threadIdx, blockIdx or blockDim and waits for nothing.
  bool block_query(std::size_t k, std::string_view method, const BlockGroups& g) const {
    static constexpr std::array<std::string_view, 7> kQueries{
        "thread_rank",  "size",      "num_threads", "group_index",
        "thread_index", "group_dim", "dim_threads"};
    const std::size_t dot = skip_space_back(k);
    return one_of(method, kQueries) && dot > 0 && s_[dot - 1] == '.' &&
           g.names.contains(word_before(dot - 1));
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
    const auto groups = block_groups(f);
    if (!groups) return false;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '[' && lambda_at(k)) return false;
      if (!word_start(k)) continue;
      // A block's sync is __syncthreads(); its group's declaration stays as it is.
      if (const auto g = groups->syncs.find(k); g != groups->syncs.end()) {
        collectives.push_back({k, g->second - k, "syncthreads()"});
        k = g->second;
        continue;
      }
      if (const auto g = groups->declarations.find(k); g != groups->declarations.end()) {
        k = g->second;
        continue;
      }
      std::size_t e = std::min(word_end(k), f.end);
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

    const std::string hoisted = hoist(dynamic_shared);
    add_edit(f.body + 1, 0,
             " " + hoisted + "::gpulab::simt::co::start([](" + params +
                 ") -> ::gpulab::simt::co::Thread {" + binds);
    for (const Site& c : collectives) {
      // A call over several lines (`cg::sync(\n b)`) waits at its first line.
      add_edit(c.at, c.length,
               "co_await ::gpulab::simt::co::" + std::string(c.awaitable) +
                   blank_lines(c.at, c.at + c.length));
    }
    for (const std::size_t r : returns) add_edit(r, 6, "co_return");
    add_edit(f.end, 0, "}(" + args + ")); ");
    return true;
  }

  // The declarations at [first, last] move to the kernel's own body (the text returned); their
  // lines stay, blank.
  std::string hoist(const std::vector<std::pair<std::size_t, std::size_t>>& declarations) {
    std::string hoisted;
    for (const auto& [b, e] : declarations) {
      for (std::size_t k = b; k <= e; ++k) {
        const char c = s_[k];
        hoisted += code_[k] && c != '\n' && c != '\r' ? c : ' ';
      }
      hoisted += ' ';
      add_edit(b, e + 1 - b, blank_lines(b, e + 1));
    }
    return hoisted;
  }

  // The line breaks of [b, e): what replaces erased text so that every line keeps its number.
  std::string blank_lines(std::size_t b, std::size_t e) const {
    std::string blank;
    for (std::size_t k = b; k < e; ++k) {
      if (s_[k] == '\n') blank += '\n';
    }
    return blank;
  }

  // ---- Region loops (docs/simt.md, "Region loops"; simt/region.hpp) -----------------------------
  //
  // A kernel whose every barrier is a plain `__syncthreads();` statement (or a thread block's
  // sync) of its body, or of the body of a `for`/`while` loop or of a branch of an `if` (itself
  // such a statement) whose header every thread evaluates alike, runs as region loops: the body
  // becomes a lambda that runs one thread from one barrier to the next (a barrier is `return N;`
  // followed by the label the next region starts from), and the locals it declares before a barrier
  // of their scope live in per-thread slots. Anything the checks below cannot prove keeps the
  // kernel as a coroutine.

  bool word_start(std::size_t k) const {
    return code_[k] && ident_char(s_[k]) && (k == 0 || !ident_char(s_[k - 1])) &&
           !std::isdigit(static_cast<unsigned char>(s_[k]));
  }
  std::size_t word_end(std::size_t k) const {
    while (k < s_.size() && ident_char(s_[k])) ++k;
    return k;
  }
  // A member's name (`threadIdx.x`, `p->n`), not a variable's.
  bool member_at(std::size_t k) const {
    const std::size_t b = skip_space_back(k);
    return b > 0 && (s_[b - 1] == '.' || (b > 1 && s_[b - 1] == '>' && s_[b - 2] == '-') ||
                     (b > 1 && s_[b - 1] == ':' && s_[b - 2] == ':'));
  }

  // The functions of the file whose body waits or may: a barrier or collective, cooperative
  // groups, a spin (an atomic that may spin, an empty loop), or a call of such a function.
  void find_waiting_functions() {
    std::vector<std::pair<std::string, std::vector<std::string>>> calls;
    for (std::size_t i = 0; i < s_.size(); ++i) {
      if (!word_start(i)) continue;
      const std::size_t e = word_end(i);
      const std::string_view word = s_.substr(i, e - i);
      if (word != "__device__" && word != "__global__") {
        i = e - 1;
        continue;
      }
      const auto f = function_after(i, e);
      if (!f) {
        i = e - 1;
        continue;
      }
      const std::string name(word_before(f->params_open));
      std::vector<std::string> callees;
      bool waits = yield_in_spin_loops(f->body + 1, f->end, true) > 0;
      for (std::size_t k = f->body + 1; k < f->end && !waits; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        const std::string_view w = s_.substr(k, we - k);
        if (awaitable_of(w) || refused_word(w) || spin_word(w)) waits = true;
        if (skip_space(we) < f->end && s_[skip_space(we)] == '(') callees.emplace_back(w);
        k = we - 1;
      }
      if (waits) {
        waiting_functions_.insert(name);
      } else {
        calls.emplace_back(name, std::move(callees));
      }
      i = f->end;
    }
    for (bool more = true; more;) {
      more = false;
      for (const auto& [name, callees] : calls) {
        if (waiting_functions_.contains(name)) continue;
        for (const std::string& c : callees) {
          if (waiting_functions_.contains(c)) {
            waiting_functions_.insert(name);
            more = true;
            break;
          }
        }
      }
    }
  }

  // Calls that may make a thread wait for another (simt's spin()).
  static bool spin_word(std::string_view w) {
    return w == "atomicCAS" || w == "atomicCAS_system" || w == "atomicCAS_block" ||
           w == "atomicExch" || w == "atomicExch_system" || w == "atomicExch_block" ||
           w == "__nanosleep";
  }

  // The word lists ahead of the class.
  static bool region_refused_word(std::string_view w) { return one_of(w, kRegionRefusedWords); }
  static bool uniform_word(std::string_view w) { return one_of(w, kUniformWords); }
  static bool statement_word(std::string_view w) { return one_of(w, kStatementWords); }
  static bool untypable_word(std::string_view w) { return one_of(w, kUntypableWords); }

  // A declaration `T a = x, b;` of a local: T's text, and each name with its initializer.
  struct Declarator {
    std::string name;
    std::size_t at = 0;                  // the name
    std::size_t eq = std::string::npos;  // its '=', if any
    std::size_t end = 0;                 // the ',' or ';' after it
  };
  struct Declaration {
    std::size_t begin = 0;  // its first word
    std::string type;       // T, as written (without __restrict__)
    std::vector<Declarator> names;
  };

  // The declaration in [b, e) (e: its ';'), or nothing when it is not one this form can keep
  // per thread.
  std::optional<Declaration> parse_declaration(std::size_t b, std::size_t e) const {
    Declaration d;
    d.begin = skip_space(b);
    std::size_t k = d.begin;
    std::size_t name_at = std::string::npos;
    int words = 0;
    while (k < e) {
      const char c = s_[k];
      if (word_start(k)) {
        const std::size_t we = word_end(k);
        const std::string_view w = s_.substr(k, we - k);
        if (untypable_word(w)) return std::nullopt;
        const std::size_t after = skip_space(we);
        if (after >= e || s_[after] == ',' || (s_[after] == '=' && s_[after + 1] != '=')) {
          if (words == 0) return std::nullopt;
          name_at = k;
          break;
        }
        if (w != "__restrict__" && w != "__restrict") {
          d.type += w;
          d.type += ' ';
          ++words;
        }
        k = after;
      } else if (c == ':' && k + 1 < e && s_[k + 1] == ':') {
        d.type += "::";
        k = skip_space(k + 2);
      } else if (c == '*') {
        d.type += "* ";
        k = skip_space(k + 1);
      } else if (c == '<') {
        const std::size_t close = match_forward(k, '>');
        if (close == std::string::npos || close >= e) return std::nullopt;
        for (std::size_t j = k; j <= close; ++j) {
          if (!code_[j]) continue;
          if (s_[j] == '(' || s_[j] == '[' || s_[j] == '{' || s_[j] == ';') return std::nullopt;
          d.type += std::isspace(static_cast<unsigned char>(s_[j])) ? ' ' : s_[j];
        }
        d.type += ' ';
        k = skip_space(close + 1);
      } else {
        return std::nullopt;  // a reference, an array, a function, a brace, ...
      }
    }
    if (name_at == std::string::npos || words == 0) return std::nullopt;
    // Declarators: `name`, `name = expression`, separated by commas at depth 0.
    k = name_at;
    for (;;) {
      if (!word_start(k)) return std::nullopt;
      Declarator n;
      n.at = k;
      const std::size_t we = word_end(k);
      n.name = std::string(s_.substr(k, we - k));
      if (uniform_word(n.name) || statement_word(n.name) || untypable_word(n.name)) {
        return std::nullopt;
      }
      std::size_t j = skip_space(we);
      if (j < e && s_[j] == '=') {
        n.eq = j;
        const std::size_t init = skip_space(j + 1);
        if (init >= e || s_[init] == '{') return std::nullopt;
        int depth = 0;
        for (j = init; j < e; ++j) {
          if (!code_[j]) continue;
          const char c = s_[j];
          if (c == '(' || c == '[' || c == '{') ++depth;
          if (c == ')' || c == ']' || c == '}') --depth;
          if (depth < 0) return std::nullopt;
          if (depth == 0 && c == ',') break;
        }
      }
      n.end = j;
      d.names.push_back(std::move(n));
      if (j >= e) break;
      if (s_[j] != ',') return std::nullopt;
      k = skip_space(j + 1);
    }
    return d;
  }

  // A local (or a barrier loop's variable) kept per thread.
  struct RegionVar {
    std::string name, type;
    std::size_t at = 0;         // the declarator's name
    std::size_t scope_end = 0;  // the '}' that ends its scope
    std::size_t eq = std::string::npos, init_end = 0;
    bool loop_var = false;
    std::size_t scope_begin = 0;  // where its name may first stand: its declarator, or its loop
  };

  // A scope whose statements hold barriers: the kernel's body, a barrier loop's body, or a branch
  // of an `if` whose condition is uniform (and its `else`, barriers or not).
  struct BarrierScope {
    std::size_t open = 0, close = 0;
    std::size_t keyword = std::string::npos;  // `for`/`while`/`if`/`else`, but for the body
    std::size_t header_open = 0, header_close = 0;
    std::string_view kind;  // the keyword; empty for the kernel's body
    // False for `if (c) __syncthreads();`: open is the barrier, close its ';'.
    bool braced = true;
  };

  // The '{' that most closely encloses `p`, searching back to `floor`.
  std::size_t enclosing_open(std::size_t p, std::size_t floor) const {
    int depth = 0;
    for (std::size_t k = p; k-- > floor;) {
      if (!code_[k]) continue;
      if (s_[k] == '}') ++depth;
      if (s_[k] == '{') {
        if (depth == 0) return k;
        --depth;
      }
    }
    return floor;
  }

  // Whether `p` stands at the top level of the braces opened at `open` (inside no parenthesis,
  // bracket or inner brace) and begins a statement there.
  bool statement_at_top(std::size_t open, std::size_t p) const {
    int depth = 0;
    for (std::size_t k = open + 1; k < p; ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
    }
    if (depth != 0) return false;
    const std::size_t before = skip_space_back(p);
    return before == open + 1 || s_[before - 1] == ';' || s_[before - 1] == '{' ||
           s_[before - 1] == '}';
  }

  // The barrier scope that the '{' at `open` is (a loop body at the top level of another barrier
  // scope), added to `scopes`; false if it is none.
  bool barrier_scope(std::size_t open, const Function& f,
                     std::map<std::size_t, BarrierScope>& scopes) {
    if (scopes.contains(open)) return true;
    if (open == f.body) {
      scopes[open] = BarrierScope{f.body, f.end, std::string::npos, 0, 0, {}, true};
      return true;
    }
    const std::size_t before = skip_space_back(open);
    if (before == 0) return false;
    if (word_before(open) == "else") {
      // The else of `if (c) { ... } else {`: the if's scope brings it.
      const std::size_t if_close = skip_space_back(before - 4);
      if (if_close == 0 || s_[if_close - 1] != '}') return false;
      const std::size_t if_open = match_back(if_close - 1, '{');
      return if_open != npos && barrier_scope(if_open, f, scopes) && scopes.contains(open);
    }
    if (s_[before - 1] != ')') return false;
    const std::size_t header_open = match_back(before - 1, '(');
    if (header_open == std::string::npos) return false;
    const std::string_view kw = word_before(header_open);
    if (kw != "for" && kw != "while" && kw != "if") return false;
    const std::size_t keyword = skip_space_back(header_open) - kw.size();
    const std::size_t parent = enclosing_open(keyword, f.body);
    if (!statement_at_top(parent, keyword) || !barrier_scope(parent, f, scopes)) return false;
    const std::size_t close = match_forward(open, '}');
    if (close == std::string::npos || close > f.end) return false;
    scopes[open] = BarrierScope{open, close, keyword, header_open, before - 1, kw, true};
    if (kw == "if") {
      // Its else, of the same condition, is a scope too (with barriers or not): `else {` only.
      const std::size_t next = skip_space(close + 1);
      if (const std::size_t body = word_at(next, "else"); body != npos && next < f.end) {
        if (body >= f.end || s_[body] != '{') return false;
        const std::size_t body_close = match_forward(body, '}');
        if (body_close == std::string::npos || body_close > f.end) return false;
        scopes[body] = BarrierScope{body, body_close, next, 0, 0, "else", true};
      }
    }
    return true;
  }

  // `if (c) __syncthreads();` (the barrier statement [b, semi]) at the top level of a barrier
  // scope, with no else: a scope of its own, added to `scopes`; false if it is none.
  bool unbraced_if(std::size_t b, std::size_t semi, const Function& f,
                   std::map<std::size_t, BarrierScope>& scopes) {
    const std::size_t before = skip_space_back(b);
    if (before == 0 || s_[before - 1] != ')') return false;
    const std::size_t header_open = match_back(before - 1, '(');
    if (header_open == npos || word_before(header_open) != "if") return false;
    const std::size_t keyword = skip_space_back(header_open) - 2;
    const std::size_t parent = enclosing_open(keyword, f.body);
    if (!statement_at_top(parent, keyword) || !barrier_scope(parent, f, scopes)) return false;
    if (word_at(skip_space(semi + 1), "else") != npos) return false;
    scopes[b] = BarrierScope{b, semi, keyword, header_open, before - 1, "if", false};
    return true;
  }

  // Whether parameter `index` of the function `name` defined in this text is a reference (or an
  // array or pointer to one: `int (&a)[4]`); nothing when the text defines no such function.
  std::optional<bool> parameter_is_reference(std::string_view name, std::size_t index) const {
    for (std::size_t at = s_.find(name); at != std::string_view::npos; at = s_.find(name, at + 1)) {
      if (!word_start(at) || word_end(at) != at + name.size()) continue;
      const std::size_t open = skip_space(at + name.size());
      if (open >= s_.size() || s_[open] != '(') continue;
      const std::size_t close = match_forward(open, ')');
      if (close == std::string_view::npos) continue;
      const std::size_t body = skip_space(close + 1);
      if (body >= s_.size() || s_[body] != '{' || word_before(at).empty()) continue;
      // A definition: its parameters, split at the top level's commas.
      std::size_t i = 0, depth = 0, begin = open + 1;
      for (std::size_t k = open + 1; k <= close; ++k) {
        if (!code_[k]) continue;
        const char c = s_[k];
        if (c == '(' || c == '[' || c == '<') ++depth;
        if ((c == ')' || c == ']' || c == '>') && depth > 0 && k < close) --depth;
        if ((depth == 0 && c == ',') || k == close) {
          if (i == index) return s_.substr(begin, k - begin).find('&') != std::string_view::npos;
          ++i;
          begin = k + 1;
        }
      }
      return false;  // fewer parameters: a variadic or defaulted call, by value
    }
    return std::nullopt;
  }

  // Whether a name between `before` (one past the code before it) and `after` (the code after it)
  // is a whole argument of a call that may take it by reference (`swap(a, b)`, `bump(n)`): any
  // function but those that take their arguments by value (printf, min, the math functions).
  bool argument_by_reference(std::size_t before, std::size_t after) const {
    if (before == 0 || after >= s_.size()) return false;
    const char p = s_[before - 1], n = s_[after];
    if ((p != '(' && p != ',') || (n != ')' && n != ',')) return false;
    std::size_t open = before - 1;
    if (p == ',') {
      int depth = 0;
      for (; open-- > 0;) {
        if (!code_[open]) continue;
        const char c = s_[open];
        if (c == ')' || c == ']' || c == '}') ++depth;
        if (c == '(' || c == '[' || c == '{') {
          if (depth == 0) break;
          --depth;
        }
        if (c == ';') return false;
      }
      if (open == std::string_view::npos || s_[open] != '(') return false;
    }
    const std::string_view callee = word_before(open);
    if (callee.empty() || !ident_char(s_[skip_space_back(open) - 1])) return false;
    static constexpr std::array<std::string_view, 14> kNotCalls{
        "if",      "while",         "for",      "switch", "return",
        "sizeof",  "alignof",       "decltype", "catch",  "__launch_bounds__",
        "defined", "static_assert", "noexcept", "case"};
    if (one_of(callee, kNotCalls)) return false;
    static constexpr std::array<std::string_view, 12> kByValue{
        "printf", "min",   "max",   "abs",  "fabs",   "fminf",
        "fmaxf",  "fabsf", "sqrtf", "sqrt", "rsqrtf", "assert"};
    if (one_of(callee, kByValue)) return false;
    // A function of this text says so in its parameter list.
    std::size_t index = 0;
    for (std::size_t k = open + 1, depth = 0; k < before - 1; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '(' || s_[k] == '[' || s_[k] == '{') ++depth;
      if (s_[k] == ')' || s_[k] == ']' || s_[k] == '}') --depth;
      if (depth == 0 && s_[k] == ',') ++index;
    }
    if (const auto by_reference = parameter_is_reference(callee, index)) return *by_reference;
    // CUDA's intrinsics (`__expf`, `__shfl_sync`, ...) and the math library's float forms (`expf`)
    // take values too.
    const bool math =
        callee.starts_with("__") || (callee.size() > 3 && callee.back() == 'f' &&
                                     std::all_of(callee.begin(), callee.end(), [](char c) {
                                       return std::islower(static_cast<unsigned char>(c)) ||
                                              std::isdigit(static_cast<unsigned char>(c));
                                     }));
    return !math;
  }

  // Whether the identifier `name` is assigned (or has its address taken) in [b, e), other than
  // by the declarator at `except`: also through a member or, with `elements`, an element
  // (`p.x += 1`, `a[i] = v`; not for a pointer, whose elements are not it), and, with `calls`, as
  // a whole argument of a call that may take it by reference.
  bool assigned(std::string_view name, std::size_t b, std::size_t e, std::size_t except,
                bool elements = true, bool calls = true) const {
    for (std::size_t k = b; k < e; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      if (s_.substr(k, we - k) != name || k == except || member_at(k)) {
        k = we - 1;
        continue;
      }
      std::size_t after = skip_space(we);
      const std::size_t before = skip_space_back(k);
      if (calls && argument_by_reference(before, after)) return true;
      // A member or element of it written: `p.x += 1`, `c[i] = v` (the op after `.x` / `[i]`).
      while (after < s_.size() &&
             ((elements && s_[after] == '[') ||
              (s_[after] == '.' && after + 1 < s_.size() && ident_char(s_[after + 1])))) {
        if (s_[after] == '[') {
          const std::size_t close = match_forward(after, ']');
          if (close == std::string_view::npos) return true;
          after = skip_space(close + 1);
        } else {
          after = skip_space(word_end(after + 1));
        }
      }
      const char a0 = after < s_.size() ? s_[after] : ' ';
      const char a1 = after + 1 < s_.size() ? s_[after + 1] : ' ';
      const char a2 = after + 2 < s_.size() ? s_[after + 2] : ' ';
      if (!elements && before >= 1 && s_[before - 1] == '*') {
        // A pointer's unary `*p = v` writes what it points at; `*p++` still moves it.
        const std::size_t prev = skip_space_back(before - 1);
        const char q = prev > 0 ? s_[prev - 1] : ';';
        if (!(ident_char(q) || q == ')' || q == ']')) {
          if ((a0 == '+' || a0 == '-') && a1 == a0) return true;
          k = we - 1;
          continue;
        }
      }
      if (a0 == '=' && a1 != '=') return true;
      if (std::string_view("+-*/%&|^").find(a0) != std::string_view::npos && a1 == '=') return true;
      if ((a0 == '<' || a0 == '>') && a1 == a0 && a2 == '=') return true;
      if ((a0 == '+' || a0 == '-') && a1 == a0) return true;
      if (before >= 2 && (s_[before - 1] == '+' || s_[before - 1] == '-') &&
          s_[before - 2] == s_[before - 1]) {
        return true;
      }
      // `&p[i]` and `&p->x` of a pointer take the address of what it points at, not of p.
      const std::size_t next = skip_space(we);
      const bool through = next < s_.size() && (s_[next] == '[' || s_.substr(next, 2) == "->");
      if (before >= 1 && s_[before - 1] == '&' && (elements || !through)) {
        // Unary `&name` (not `a & name` nor `a && name`).
        const std::size_t prev = skip_space_back(before - 1);
        const char p = prev > 0 ? s_[prev - 1] : ';';
        if (!(ident_char(p) || p == ')' || p == ']')) return true;
      }
      k = we - 1;
    }
    return false;
  }

  // Whether every thread of a block computes the same value from [b, e): literals, blockIdx,
  // blockDim, gridDim, by-value parameters the kernel never assigns, constants, and locals and
  // loop variables (of `vars`) that are such themselves; no call, subscript or member access
  // through a pointer.
  // With `thread`, threadIdx too: the expression is then alike in every run of one thread.
  bool uniform(std::size_t b, std::size_t e, const Function& f,
               const std::vector<Parameter>& params, const std::vector<RegionVar>& vars, int depth,
               bool thread = false) const {
    if (depth > 32) return false;
    for (std::size_t k = b; k < e; ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '[' || (c == '-' && k + 1 < e && s_[k + 1] == '>')) return false;
      if (c == '*') {
        // Unary `*p` reads memory (another thread may write it); `a * b` multiplies.
        const std::size_t prev = skip_space_back(k);
        const char q = prev > b ? s_[prev - 1] : '(';
        if (!(ident_char(q) || q == ')' || q == ']')) return false;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) && (k == 0 || !ident_char(s_[k - 1]))) {
        k = word_end(k) - 1;  // a number (1.0f, 0x10u)
        continue;
      }
      if (!word_start(k)) continue;
      const std::size_t start = k;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      k = we - 1;
      if (member_at(start)) continue;  // .x of blockIdx.x
      if (uniform_word(w) || (thread && w == "threadIdx")) continue;
      if (skip_space(we) < s_.size() && s_[skip_space(we)] == '(') return false;  // a call
      bool known = false;
      for (const Parameter& p : params) {
        if (p.name == w) {
          if (p.pointer || assigned(w, f.body + 1, f.end, std::string::npos)) return false;
          known = true;
        }
      }
      if (known) continue;
      const RegionVar* var = nullptr;
      for (const RegionVar& v : vars) {
        if (v.name == w) var = &v;
      }
      // A constant, not a parameter or local of an ALL_CAPS name (`int T = threadIdx.x;`); else
      // a variable of a nested block, a global, ...
      if (var == nullptr) {
        if (constant_name(w, thread)) continue;
        return false;
      }
      if (var->loop_var) continue;  // checked with its loop
      if (var->eq == std::string::npos || var->at >= b ||
          !uniform_updates(*var, f, params, vars, depth, thread) ||
          !uniform(var->eq + 1, var->init_end, f, params, vars, depth + 1, thread)) {
        return false;
      }
    }
    return true;
  }

  // Whether the local v is never assigned but by its declaration, or only by statements at the
  // top level of barrier scopes, `v op= e;`, `v = e;`, `++v;` or `v++;` (`--` too) with e uniform
  // (a tree's `stride >>= 1;`): every thread runs those statements alike, so v stays alike in
  // every thread, each thread's copy as thread 0's.
  bool uniform_updates(const RegionVar& v, const Function& f, const std::vector<Parameter>& params,
                       const std::vector<RegionVar>& vars, int depth, bool thread) const {
    if (!assigned(v.name, f.body + 1, f.end, v.at, v.type.find('*') == std::string::npos))
      return true;
    if (region_scopes_ == nullptr || v.loop_var) return false;
    if (std::find(assuming_.begin(), assuming_.end(), v.name) != assuming_.end()) return true;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      if (k == v.at || s_.substr(k, we - k) != v.name || member_at(k) ||
          !assigned(v.name, k, we, std::string::npos)) {
        k = we - 1;
        continue;
      }
      // The statement that assigns it.
      std::size_t begin = k;
      const std::size_t before = skip_space_back(k);
      const bool prefix = before >= 2 && (s_[before - 1] == '+' || s_[before - 1] == '-') &&
                          s_[before - 2] == s_[before - 1];
      if (prefix) begin = before - 2;
      const std::size_t open = enclosing_open(begin, f.body);
      const auto scope = region_scopes_->find(open);
      if (scope == region_scopes_->end() || !statement_at_top(open, begin)) return false;
      const std::size_t semi = statement_end(we, scope->second.close);
      if (semi == std::string_view::npos) return false;
      const std::size_t after = skip_space(we);
      if (prefix) {
        if (after != semi) return false;
      } else if ((s_[after] == '+' || s_[after] == '-') && s_[after + 1] == s_[after]) {
        if (skip_space(after + 2) != semi) return false;
      } else {
        const std::size_t eq = s_.find('=', after);
        if (eq == std::string_view::npos || eq > after + 2 || eq >= semi) return false;
        assuming_.push_back(v.name);
        const bool alike = uniform(eq + 1, semi, f, params, vars, depth + 1, thread);
        assuming_.pop_back();
        if (!alike) return false;
      }
      k = semi;
    }
    return true;
  }

  // A name that is a compile-time constant: a macro or constant by convention (ALL_CAPS), or
  // declared constexpr or #define'd in the file.
  // A macro (object-like, #define'd in the file or elsewhere in the program) is one only if its
  // replacement is (`#define TID threadIdx.x` is not; with `thread`, it may name threadIdx).
  bool constant_name(std::string_view w, bool thread = false, int depth = 0) const {
    if (const auto m = macros_.find(w); m != macros_.end()) {
      return depth < 8 && constant_text(m->second, thread, depth + 1);
    }
    const bool caps = std::none_of(
        w.begin(), w.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
    return (caps && !declared_variable(w)) || declared_constant(w);
  }

  // Whether the text declares `w` a variable in memory a thread can write (`__shared__ int
  // TOTAL;`, `__device__ float SUM[4];`): an ALL_CAPS name, but no constant.
  bool declared_variable(std::string_view w) const {
    for (std::size_t k = s_.find(w); k != std::string_view::npos; k = s_.find(w, k + 1)) {
      if (!word_start(k) || word_end(k) != k + w.size()) continue;
      const std::size_t after = skip_space(k + w.size());
      if (after >= s_.size() || std::string_view(";[=,").find(s_[after]) == std::string_view::npos)
        continue;
      std::size_t b = k;
      while (b > 0 && s_[b - 1] != ';' && s_[b - 1] != '{' && s_[b - 1] != '}') --b;
      const std::string_view head = s_.substr(b, k - b);
      if (const std::size_t c = head.find("const");
          c != std::string_view::npos && (c + 5 == head.size() || !ident_char(head[c + 5])))
        continue;  // `__device__ const int N = 4;`, `static constexpr`: read-only
      for (const std::string_view space : {"__shared__", "__device__", "__managed__"}) {
        if (const std::size_t c = head.find(space); c != std::string_view::npos && code_[b + c])
          return true;
      }
    }
    return false;
  }
  // Whether a macro's replacement is alike in every thread of a block: numbers, operators, the
  // uniform words and constant names; no subscript, `->` or call.
  bool constant_text(std::string_view t, bool thread, int depth) const {
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '[' || t.substr(k, 2) == "->") return false;
      if (!ident_char(t[k])) continue;
      std::size_t e = k;
      while (e < t.size() && ident_char(t[e])) ++e;
      const std::string_view w = t.substr(k, e - k);
      std::size_t before = k;
      while (before > 0 && std::isspace(static_cast<unsigned char>(t[before - 1]))) --before;
      std::size_t after = e;
      while (after < t.size() && std::isspace(static_cast<unsigned char>(t[after]))) ++after;
      const bool number = std::isdigit(static_cast<unsigned char>(t[k]));
      k = e - 1;
      if (number || (before > 0 && t[before - 1] == '.')) continue;            // 1.0f, .x
      if (after < t.size() && t[after] == '(' && w != "sizeof") return false;  // a call
      if (uniform_word(w) || (thread && w == "threadIdx")) continue;
      if (!constant_name(w, thread, depth)) return false;
    }
    return true;
  }
  // The object-like macros of this text (`#define NAME replacement`): a name defined more than
  // once keeps every replacement.
  void find_macros() {
    for (std::size_t k = 0; k < s_.size(); ++k) {
      if (s_[k] != '#' || !code_[k] || !preprocessor_line(k)) continue;
      std::size_t d = k + 1;
      while (d < s_.size() && (s_[d] == ' ' || s_[d] == '\t')) ++d;
      if (!at(d, "define") || d + 6 >= s_.size() || ident_char(s_[d + 6])) continue;
      std::size_t n = d + 6;
      while (n < s_.size() && (s_[n] == ' ' || s_[n] == '\t')) ++n;
      const std::size_t ne = word_end(n);
      if (ne == n || (ne < s_.size() && s_[ne] == '(')) continue;  // none, or function-like
      std::string body = " ";
      std::size_t j = ne;
      for (; j < s_.size() && s_[j] != '\n'; ++j) {
        if (s_[j] == '\\' && j + 1 < s_.size() && s_[j + 1] == '\n') {
          ++j;  // a continued line
          continue;
        }
        body += code_[j] ? s_[j] : ' ';
      }
      macros_[std::string(s_.substr(n, ne - n))] += body;
      k = j;
    }
  }
  bool declared_constant(std::string_view w) const {
    for (std::size_t k = s_.find(w); k != std::string_view::npos; k = s_.find(w, k + 1)) {
      if (!word_start(k) || word_end(k) != k + w.size()) continue;
      const std::string_view before = word_before(k);
      if (before == "define" && preprocessor_line(k)) return true;
      // `constexpr T w =`: the statement's words before w hold constexpr.
      std::size_t b = k;
      while (b > 0 && s_[b - 1] != ';' && s_[b - 1] != '{' && s_[b - 1] != '}' &&
             s_[b - 1] != '(' && s_[b - 1] != ',') {
        --b;
      }
      const std::size_t after = skip_space(k + w.size());
      if (after < s_.size() && s_[after] == '=' && s_[after + 1] != '=') {
        const std::string_view head = s_.substr(b, k - b);
        if (const std::size_t c = head.find("constexpr");
            c != std::string_view::npos && code_[b + c]) {
          return true;
        }
      }
    }
    return false;
  }

  bool region_kernel(const Function& f) {
    std::vector<std::size_t> barriers, returns, breaks;
    std::map<std::size_t, std::size_t> barrier_end;  // each barrier statement's ';'
    std::vector<std::pair<std::size_t, std::size_t>> dynamic_shared;
    const auto groups = block_groups(f);
    if (!groups) return false;
    // The kernel's code: the words that decide whether it can run as region loops at all.
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '[' && lambda_at(k)) return false;
      if (s_[k] == '#' && preprocessor_line(k)) return false;
      if (s_[k] == '<' && at(k, "<<<")) return false;  // a child launch
      if (!word_start(k)) continue;
      if (const auto g = groups->syncs.find(k); g != groups->syncs.end()) {
        barriers.push_back(k);
        barrier_end[k] = g->second;
        k = g->second;
        continue;
      }
      if (const auto g = groups->declarations.find(k); g != groups->declarations.end()) {
        k = g->second;
        continue;
      }
      const std::size_t e = word_end(k);
      const std::string_view w = s_.substr(k, e - k);
      const std::size_t next = skip_space(e);
      const bool call = next < f.end && s_[next] == '(';
      if (refused_word(w) || region_refused_word(w) || spin_word(w)) return false;
      // A block group only syncs (above) or answers a query (`b.size()`): passed to a function,
      // copied or named otherwise, it may wait where region loops cannot see.
      if (groups->names.contains(w) && !member_at(k) && (next >= f.end || s_[next] != '.'))
        return false;
      if (w == "__syncthreads") {
        // `__syncthreads();` as a statement.
        if (!call || member_at(k)) return false;
        const std::size_t close = skip_space(next + 1);
        if (close >= f.end || s_[close] != ')' || s_[skip_space(close + 1)] != ';') return false;
        barriers.push_back(k);
        barrier_end[k] = skip_space(close + 1);
      } else if (awaitable_of(w)) {
        return false;  // another collective: the coroutine form
      } else if (w == "return") {
        returns.push_back(k);
      } else if (w == "break" || w == "continue") {
        breaks.push_back(k);
      } else if (w == "extern") {
        const std::size_t end = extern_shared_end(e, f.end);
        if (end == std::string_view::npos) return false;
        dynamic_shared.emplace_back(k, end);
        k = end;
        continue;
      } else if (call && (member_at(k) || waiting_functions_.contains(w)) &&
                 !block_query(k, w, *groups)) {
        return false;  // a method or a function that may wait
      }
      k = e - 1;
    }
    if (barriers.empty()) return false;
    if (yield_in_spin_loops(f.body + 1, f.end, true) > 0) return false;

    // Every barrier a statement of a barrier scope, or the whole of a uniform if's.
    std::map<std::size_t, BarrierScope> scopes;
    for (const std::size_t b : barriers) {
      const std::size_t open = enclosing_open(b, f.body);
      if (statement_at_top(open, b) ? !barrier_scope(open, f, scopes)
                                    : !unbraced_if(b, barrier_end[b], f, scopes)) {
        return false;
      }
    }
    const auto last_barrier_in = [&](std::size_t b, std::size_t e) {
      std::size_t last = std::string::npos;
      for (const std::size_t x : barriers) {
        if (x > b && x < e) last = x;
      }
      return last;
    };
    // No thread leaves a barrier loop early or the kernel before its last barrier. (A `break` in
    // a branch leaves a loop or switch inside it, or the barrier loop around it.)
    for (const auto& [open, scope] : scopes) {
      if (scope.keyword == std::string::npos) continue;
      for (const std::size_t r : breaks) {
        if (r > scope.open && r < scope.close && (scope.kind == "for" || scope.kind == "while"))
          return false;
      }
      for (const std::size_t r : returns) {
        if (r > scope.keyword && r < scope.close) return false;
      }
    }
    for (const std::size_t r : returns) {
      if (r < barriers.back()) return false;
    }

    const auto params = parameter_names(f);
    if (!params) return false;
    // A region loop runs every thread of the block in one call's parameters: a parameter that
    // the kernel assigns (`d += blockIdx.x * blockDim.x;`) would add up over the threads.
    for (const Parameter& p : *params) {
      if (assigned(p.name, f.body + 1, f.end, std::string::npos, !p.pointer, false)) return false;
    }
    region_scopes_ = &scopes;
    struct Forget {
      const std::map<std::size_t, BarrierScope>*& scopes;
      ~Forget() { scopes = nullptr; }
    } forget{region_scopes_};

    // The locals each barrier scope declares before one of its barriers, and the loops'
    // variables: kept per thread.
    std::vector<RegionVar> vars;
    std::vector<Declaration> converted;  // declarations that become construct() calls
    // Static storage (`__shared__`, `static`, `constexpr`) declared before a barrier of its scope.
    std::vector<std::pair<std::size_t, std::size_t>> statics;
    for (const auto& [open, scope] : scopes) {
      if (!scope.braced) continue;  // the barrier alone
      if (scope.kind == "for") {
        // The loop's own variables: `for (T a = x, b = y; ...)`.
        std::size_t semi = scope.header_open + 1;
        int depth = 0;
        for (; semi < scope.header_close; ++semi) {
          if (!code_[semi]) continue;
          if (s_[semi] == '(' || s_[semi] == '[' || s_[semi] == '{') ++depth;
          if (s_[semi] == ')' || s_[semi] == ']' || s_[semi] == '}') --depth;
          if (depth == 0 && s_[semi] == ';') break;
        }
        if (semi >= scope.header_close) return false;
        const std::size_t first = skip_space(scope.header_open + 1);
        if (first < semi && word_start(first)) {
          const std::string_view w = s_.substr(first, word_end(first) - first);
          const std::size_t after = skip_space(word_end(first));
          const bool declaration = uniform_word(w) || w == "const" ||
                                   (after < semi && (word_start(after) || s_[after] == '*' ||
                                                     s_[after] == '<' || s_[after] == ':'));
          if (declaration) {
            const auto d = parse_declaration(first, semi);
            if (!d || d->type.find("const ") != std::string::npos) return false;
            for (const Declarator& n : d->names) {
              if (n.eq == std::string::npos) return false;
              vars.push_back(
                  {n.name, d->type, n.at, scope.close, n.eq, n.end, true, scope.keyword});
            }
          }
        }
      }
      // The statements at the scope's top level (none of an else without barriers lives across
      // one).
      const std::size_t last = last_barrier_in(scope.open, scope.close);
      if (last == std::string::npos) continue;
      int depth = 0;
      bool start = true;
      for (std::size_t k = scope.open + 1; k < scope.close; ++k) {
        if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) continue;
        const char c = s_[k];
        const bool statement = start && depth == 0;
        start = false;
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (depth == 0 && (c == ';' || c == '}')) start = true;
        if (!statement || !word_start(k) || k > last) continue;
        const std::size_t we = word_end(k);
        const std::string_view w = s_.substr(k, we - k);
        if (statement_word(w) || w == "extern" || barrier_end.contains(k)) continue;
        if (w == "__shared__" || w == "static" || w == "constexpr" ||
            groups->declarations.contains(k)) {
          // Static storage: moves ahead of the region loops, where every region sees it.
          const std::size_t end = statement_end(k, scope.close);
          if (end == std::string_view::npos) return false;
          statics.emplace_back(k, end);
          k = end;
          depth = 0;
          start = true;
          continue;
        }
        const std::size_t after = skip_space(we);
        const bool declaration =
            uniform_word(w) || w == "const" || w == "volatile" ||
            (after < scope.close &&
             (word_start(after) || s_[after] == '*' ||
              (s_[after] == '<' && s_[after + 1] != '<' && s_[after + 1] != '=') ||
              (s_[after] == ':' && s_[after + 1] == ':') ||
              (s_[after] == '&' && s_[after + 1] != '&' && s_[after + 1] != '=')));
        if (!declaration) continue;
        // Its ';' (a brace first: no declaration this form keeps).
        std::size_t end = k;
        int d2 = 0;
        for (; end < scope.close; ++end) {
          if (!code_[end]) continue;
          if (s_[end] == '(' || s_[end] == '[') ++d2;
          if (s_[end] == ')' || s_[end] == ']') --d2;
          if (s_[end] == '{' || s_[end] == '}') return false;
          if (d2 == 0 && s_[end] == ';') break;
        }
        if (end >= scope.close) return false;
        bool static_storage = false;
        for (std::size_t j = k; j < end; ++j) {
          if (word_start(j)) {
            const std::string_view x = s_.substr(j, word_end(j) - j);
            if (x == "__shared__" || x == "static" || x == "thread_local") static_storage = true;
            j = word_end(j) - 1;
          }
        }
        if (!static_storage) {
          const auto d = parse_declaration(k, end);
          if (!d) return false;
          for (const Declarator& n : d->names) {
            vars.push_back({n.name, d->type, n.at, scope.close, n.eq, n.end, false, n.at});
          }
          converted.push_back(*d);
        } else {
          statics.emplace_back(k, end);
        }
        k = end;
        depth = 0;
        start = true;
      }
    }

    // Each kept name stands for one variable: used only inside its scope, after its declaration,
    // and no other variable of that name in the kernel.
    for (const RegionVar& v : vars) {
      for (const RegionVar& o : vars) {
        if (&o != &v && o.name == v.name) return false;
      }
      for (const Parameter& p : *params) {
        if (p.name == v.name) return false;
      }
      const std::size_t scope_begin = v.scope_begin;
      for (std::size_t k = f.body + 1; k < f.end; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        if (s_.substr(k, we - k) == v.name && !member_at(k) &&
            (k < scope_begin || k > v.scope_end)) {
          return false;
        }
        k = we - 1;
      }
    }

    // Every barrier loop's or branch's header alike in every thread; a loop's variables not
    // assigned in its body.
    for (const auto& [open, scope] : scopes) {
      if (scope.keyword == std::string::npos || scope.kind == "else") continue;
      if (!uniform(scope.header_open + 1, scope.header_close, f, *params, vars, 0)) return false;
      for (const RegionVar& v : vars) {
        if (!v.loop_var || v.scope_end != scope.close) continue;
        if (assigned(v.name, scope.open, scope.close, std::string::npos)) return false;
        if (!uniform(v.eq + 1, v.init_end, f, *params, vars, 0)) return false;
      }
    }

    // The transformation: each region, a loop over the block's threads; each barrier loop, a loop
    // of the block around its regions' loops (docs/simt.md, "Region loops").
    std::sort(statics.begin(), statics.end());
    std::vector<std::pair<std::size_t, std::string>> ahead;  // moves ahead of the loops
    // A local of the kernel's body that is never assigned and whose initializer is alike in
    // every thread (blockIdx, blockDim, by-value parameters, constants, such locals) is the
    // block's, computed once ahead of the loops; one whose initializer also names threadIdx is
    // computed again at each region's start (the compiler then sees threadIdx.x as the loop's
    // variable); neither needs a slot.
    enum class Kept { slot, block, thread };
    std::vector<Kept> kept(vars.size(), Kept::slot);
    const auto plain = [&](std::size_t b, std::size_t e) {  // no comment or literal to move
      for (std::size_t k = b; k < e; ++k) {
        if (!code_[k] && !std::isspace(static_cast<unsigned char>(s_[k]))) return false;
      }
      return true;
    };
    const auto init_text = [&](const RegionVar& v) {
      std::string t;
      for (std::size_t k = v.eq + 1; k < v.init_end; ++k) t += s_[k] == '\n' ? ' ' : s_[k];
      return t;
    };
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const RegionVar& v = vars[i];
      if (v.loop_var || v.scope_end != f.end || v.eq == std::string::npos ||
          !plain(v.eq + 1, v.init_end) ||
          assigned(v.name, f.body + 1, f.end, v.at, v.type.find('*') == std::string::npos)) {
        continue;
      }
      // Every local its initializer names is computed ahead of it too.
      bool names_slot = false;
      for (std::size_t k = v.eq + 1; k < v.init_end; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        for (std::size_t j = 0; j < i; ++j) {
          if (vars[j].name == s_.substr(k, we - k) && kept[j] == Kept::slot) names_slot = true;
        }
        k = we - 1;
      }
      if (names_slot) continue;
      if (uniform(v.eq + 1, v.init_end, f, *params, vars, 0)) {
        kept[i] = Kept::block;
        ahead.emplace_back(v.at, " " + v.type + " " + v.name + " =" + init_text(v) + ";");
      } else if (uniform(v.eq + 1, v.init_end, f, *params, vars, 0, true)) {
        kept[i] = Kept::thread;
      }
    }
    // Static declarations move ahead of the loops too, in the text's order with the block's
    // locals (`const int N = 64; __shared__ float s[N];`); one that names another local stays a
    // coroutine.
    for (const auto& [b, e] : statics) {
      for (std::size_t k = b; k < e; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        for (std::size_t j = 0; j < vars.size(); ++j) {
          if (vars[j].name == s_.substr(k, we - k) && kept[j] != Kept::block) return false;
        }
        k = we - 1;
      }
    }
    std::string prologue = " " + hoist(dynamic_shared) +
                           "if (auto* gpulab_rl_ = ::gpulab::simt::region::begin()) { "
                           "::gpulab::simt::region::Block gpulab_rb_(*gpulab_rl_);";
    for (const auto& [b, e] : statics) {
      ahead.emplace_back(b, (s_.substr(b, 9) == "constexpr" ? " static " : " ") + hoist({{b, e}}));
    }
    std::sort(ahead.begin(), ahead.end());
    for (const auto& a : ahead) prologue += a.second;
    std::string binds;
    std::map<std::string_view, std::string> slot_names;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (vars[i].loop_var) continue;  // the block's: every thread's is alike
      if (kept[i] == Kept::block) continue;
      if (kept[i] == Kept::thread) {
        binds += " [[maybe_unused]] " + vars[i].type + " " + vars[i].name + " =" +
                 init_text(vars[i]) + ";";
        continue;
      }
      const std::string slots = "gpulab_rs" + std::to_string(i) + "_";
      slot_names[vars[i].name] = slots;
      prologue += " auto* " + slots + " = ::gpulab::simt::region::store<" + vars[i].type +
                  ">(gpulab_rb_.threads());";
      binds += " [[maybe_unused]] " + vars[i].type + "& __restrict__ " + vars[i].name + " = " +
               slots + "[gpulab_rt_];";
    }
    // A barrier loop's header runs once for the block: a kept local it names (uniform, never
    // assigned: alike in every thread) is thread 0's.
    for (const auto& [open, scope] : scopes) {
      if (scope.keyword == std::string::npos) continue;
      for (std::size_t k = scope.header_open + 1; k < scope.header_close; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        if (const auto it = slot_names.find(s_.substr(k, we - k));
            it != slot_names.end() && !member_at(k)) {
          add_edit(k, we - k, it->second + "[0]");
        }
        k = we - 1;
      }
    }
    // The places where a region ends and the next begins, in the text's order.
    enum class Cut { start, barrier, loop, body_open, body_close, after_loop, end };
    struct At {
      std::size_t at, erase;
      Cut cut;
    };
    std::vector<At> cuts{{f.body + 1, 0, Cut::start}, {f.end, 0, Cut::end}};
    for (const std::size_t b : barriers) cuts.push_back({b, barrier_end[b] + 1 - b, Cut::barrier});
    for (const auto& [open, scope] : scopes) {
      if (scope.keyword == std::string::npos) continue;
      cuts.push_back({scope.keyword, 0, Cut::loop});
      if (scope.braced) {
        cuts.push_back({scope.open + 1, 0, Cut::body_open});
        cuts.push_back({scope.close, 0, Cut::body_close});
      }
      cuts.push_back({scope.close + 1, 0, Cut::after_loop});
    }
    // At one place: the cut that closes a loop first, then one that opens.
    const auto rank = [](Cut c) {
      return c == Cut::start || c == Cut::body_open || c == Cut::after_loop ? 0
             : c == Cut::body_close                                         ? 1
             : c == Cut::end                                                ? 3
                                                                            : 2;
    };
    std::sort(cuts.begin(), cuts.end(), [&](const At& a, const At& b) {
      return a.at != b.at ? a.at < b.at : rank(a.cut) < rank(b.cut);
    });
    // A region with no code (once its static declarations moved) gets no loop.
    const auto has_code = [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) {
        if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) continue;
        const auto moved = std::find_if(statics.begin(), statics.end(), [&](const auto& st) {
          return k >= st.first && k <= st.second;
        });
        if (moved == statics.end()) return true;
        k = moved->second;
      }
      return false;
    };
    // Between a loop's keyword and its body, and at its body's '}': the block's loop, no region.
    const auto region_after = [&](std::size_t i) {
      return i + 1 < cuts.size() && cuts[i].cut != Cut::loop && cuts[i].cut != Cut::body_close &&
             has_code(cuts[i].at + cuts[i].erase, cuts[i + 1].at);
    };
    // The threads in order, x fastest, as loops over z, y and x: threadIdx is the loops' variables.
    const std::string open_loop =
        " { unsigned gpulab_rn_ = gpulab_rb_.threads(); for (unsigned gpulab_rz_ = 0; gpulab_rz_ "
        "< gpulab_rb_.dz; ++gpulab_rz_) for (unsigned gpulab_ry_ = 0; gpulab_ry_ < gpulab_rb_.dy; "
        "++gpulab_ry_) for (unsigned gpulab_rr_ = gpulab_rb_.row(gpulab_ry_, gpulab_rz_), "
        "gpulab_rxe_ = gpulab_rb_.row_end(gpulab_rr_, gpulab_rn_), gpulab_rx_ = 0; gpulab_rx_ < "
        "gpulab_rxe_; ++gpulab_rx_) { const unsigned gpulab_rt_ = gpulab_rr_ + gpulab_rx_; "
        "gpulab_rb_.thread(gpulab_rt_, gpulab_rx_, gpulab_ry_, gpulab_rz_);" +
        binds + " try {";
    const std::string close_loop =
        " } catch (const ::gpulab::simt::detail::ThreadEnded&) { "
        "gpulab_rb_.ended_thread(gpulab_rn_, gpulab_rxe_, gpulab_rr_); }";
    for (std::size_t i = 0; i < cuts.size(); ++i) {
      const At& c = cuts[i];
      std::string text;
      if (i > 0 && region_after(i - 1)) {
        text += close_loop;
        if (c.cut == Cut::end && !returns.empty()) text += " gpulab_rend_:;";
        text += " } }";
        if (c.cut != Cut::barrier && c.cut != Cut::end) {
          text += " if (gpulab_rb_.ended()) return;";
        }
      }
      if (c.cut == Cut::start) text += prologue;
      if (c.cut == Cut::barrier) {
        // The whole of an if (`if (c) __syncthreads();`) in braces.
        const bool alone = scopes.contains(c.at);
        text += blank_lines(c.at, c.at + c.erase) + (alone ? " {" : "") +
                " if (gpulab_rb_.barrier()) return;" + (alone ? " }" : "");
      }
      if (c.cut == Cut::end) text += " } ";
      if (region_after(i)) text += open_loop;
      add_edit(c.at, c.erase, text);
    }
    // A return (after the last barrier, outside barrier loops) ends the thread's last region.
    for (const std::size_t r : returns) add_edit(r, 6, "goto gpulab_rend_");
    for (const Declaration& d : converted) {
      add_edit(d.begin, d.names.front().at - d.begin, blank_lines(d.begin, d.names.front().at));
      for (const Declarator& n : d.names) {
        const auto v = std::find_if(vars.begin(), vars.end(),
                                    [&](const RegionVar& x) { return x.at == n.at; });
        if (v != vars.end() && kept[v - vars.begin()] != Kept::slot) {
          add_edit(n.at, n.end - n.at, blank_lines(n.at, n.end) + "(void)0");
          continue;
        }
        add_edit(n.at, 0, "::gpulab::simt::region::construct(");
        if (n.eq != std::string::npos) add_edit(n.eq, 1, ",");
        add_edit(n.end, 0, ")");
      }
    }
    return true;
  }

  // The ';' that ends the statement at `k` (before `limit`); npos if none.
  std::size_t statement_end(std::size_t k, std::size_t limit) const {
    int depth = 0;
    for (; k < limit; ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && c == ';') return k;
    }
    return std::string_view::npos;
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
  int yield_in_spin_loops(std::size_t begin, std::size_t end, bool count_only = false) {
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
        if (!count_only) add_edit(body_open + 1, 0, std::string(kYield));
        ++found;
        continue;
      }
      if (statement_is_do(before)) continue;  // `do x(); while (cond);`
      const std::size_t after = skip_space(close + 1);
      if (after >= end) continue;
      if (s_[after] == ';') {
        if (!count_only) add_edit(after, 1, "{" + std::string(kYield) + "}");
        ++found;
      } else if (s_[after] == '{' && skip_space(after + 1) < end &&
                 s_[skip_space(after + 1)] == '}') {
        if (!count_only) add_edit(after + 1, 0, std::string(kYield));
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
  bool regions_;
  // While region_kernel checks a kernel: its barrier scopes, and the locals whose updates
  // uniform_updates is checking (taken as uniform meanwhile).
  const std::map<std::size_t, BarrierScope>* region_scopes_ = nullptr;
  mutable std::vector<std::string_view> assuming_;
  std::map<std::size_t, Edit> edits_;
  // Device functions that wait or may (a barrier, a collective, a spin), and those that call one.
  std::set<std::string, std::less<>> waiting_functions_;
  // The names of the cooperative_groups namespace, and whether it is used whole.
  std::set<std::string, std::less<>> group_namespaces_{"cooperative_groups"};
  bool using_groups_ = false;
  // Object-like macros, by name: their replacement text (comments blank).
  std::map<std::string, std::string, std::less<>> macros_;
};

}  // namespace

Split split_kernels(std::string_view source, bool coroutines, bool regions,
                    std::string_view elsewhere) {
  return Splitter(source, coroutines, regions).run(elsewhere);
}

}  // namespace gpulab::run
