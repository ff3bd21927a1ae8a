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
#include <cstdlib>
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
  static constexpr std::array<std::string_view, 19> kWords{
      "co_await", "co_return", "co_yield", "cooperative_groups", "cg", "this_thread_block",
      "tiled_partition", "coalesced_threads", "this_grid", "grid_group", "thread_block",
      "labeled_partition",
      // The warp functions without a mask that CUDA 9 removed (cuda_runtime.h).
      "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__any", "__all", "__ballot"};
  return one_of(w, kWords);
}

bool type_word(std::string_view w) {
  static constexpr std::array<std::string_view, 16> kWords{
      "int",  "unsigned", "signed", "char",     "short",  "long",         "float",  "double",
      "bool", "void",     "const",  "volatile", "size_t", "__restrict__", "struct", "auto"};
  return one_of(w, kWords);
}

// Words whose statement the region form cannot keep as it is: besides control it cannot split, a
// local type (an alias, an enum) or a type named after an expression, which the per-thread copies
// of the kernel's locals, declared ahead of its first region, cannot name.
constexpr std::array<std::string_view, 14> kRegionRefusedWords{
    "goto",  "throw",    "asm",     "__asm__", "setjmp",   "longjmp",    "try",
    "catch", "co_await", "typedef", "enum",    "decltype", "__typeof__", "typeof"};

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
    // A `#line` directive (inline_waiting_calls writes them between statements) is no code.
    for (std::size_t k = s_.find("#line "); k != npos; k = s_.find("#line ", k + 1)) {
      if (k > 0 && s_[k - 1] != '\n') continue;
      for (; k < s_.size() && s_[k] != '\n'; ++k) code_[k] = false;
    }
    find_group_namespaces();
    find_macros();
  }

  // The device functions of this text that wait or may (see find_waiting_functions).
  std::set<std::string, std::less<>> waiting_functions() {
    find_waiting_functions();
    return waiting_functions_;
  }

  // The device functions of this text with warp-synchronous volatile accesses (see
  // find_lockstep_accesses).
  std::set<std::string, std::less<>> lockstep_functions() {
    find_lockstep_accesses();
    return lockstep_functions_;
  }

  Split run(std::string_view elsewhere) {
    Split out;
    if (!elsewhere.empty()) {
      Splitter other(elsewhere, true, true);
      // A kernel here may call a device function of a user header or of another file of the
      // program: one that waits there keeps the kernel off region loops as one here does.
      if (regions_) waiting_functions_ = other.waiting_functions();
      // So does one whose volatile accesses take rounds (they yield).
      lockstep_functions_ = other.lockstep_functions();
      // `namespace cg = cooperative_groups;` may stand in a header.
      group_namespaces_.merge(other.group_namespaces_);
      using_groups_ = using_groups_ || other.using_groups_;
      // Its macros, which a kernel here may name.
      for (const auto& [name, body] : other.macros_) macros_[name] += " " + body;
      for (const auto& [name, body] : other.function_macros_) function_macros_[name] += " " + body;
    }
    if (regions_) find_waiting_functions();
    find_lockstep_accesses();
    atomic_add_defined_ = defines_atomic_add(s_) || defines_atomic_add(elsewhere);
    for (const std::size_t k : lockstep_sites_) {
      if (const auto read = lockstep_reads_.find(k); read != lockstep_reads_.end())
        add_edit(read->second, 0, " +");
      add_edit(k, 0, "::gpulab::simt::lockstep(");
      add_edit(word_end(k), 0, ")");
    }
    out.lockstep_accesses = static_cast<int>(lockstep_sites_.size());
    each_function([&](bool kernel, std::size_t, const Function& f) {
      if (kernel && coroutines_) {
        if (regions_ && region_kernel(f)) {
          ++out.kernels;
          ++out.regions;
        } else if (transform_kernel(f)) {
          ++out.kernels;
        } else {
          out.deferred_adds += defer_atomic_adds(f);
        }
      }
      out.spin_loops += yield_in_spin_loops(f.body + 1, f.end);
    });
    out.text = edited();
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

  // Each function the text defines `__global__` or `__device__`, in order: visit(whether it is a
  // kernel, where that word stands, the function).
  template <class Visit>
  void each_function(Visit visit) {
    for (std::size_t i = 0; i < s_.size(); ++i) {
      if (!word_start(i)) continue;
      const std::size_t e = word_end(i);
      const std::string_view word = s_.substr(i, e - i);
      if (word == "__global__" || word == "__device__") {
        if (const auto f = function_after(i, e)) {
          visit(word == "__global__", i, *f);
          i = f->end;
          continue;
        }
      }
      i = e - 1;
    }
  }

  // The text with the edits made.
  std::string edited() const {
    std::string out;
    out.reserve(s_.size() + 256 * edits_.size());
    std::size_t copied = 0;
    for (const auto& [at, edit] : edits_) {
      out.append(s_.substr(copied, at - copied));
      out += edit.text;
      copied = at + edit.erase;
    }
    out.append(s_.substr(copied));
    return out;
  }

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

  // A scope's code characters, one at a time: whether each begins a statement at its top level.
  struct TopLevel {
    int depth = 0;
    bool start = true;
    bool statement(char c) {
      const bool at = start && depth == 0;
      start = false;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && (c == ';' || c == '}')) start = true;
      return at;
    }
  };

  // Whether the statement that begins with the word w, which ends at we (before limit), declares
  // a local: `T x`, `T* x`, `T<U> x`, `ns::T x`, `T& x`, `const ...`.
  bool declaration_start(std::string_view w, std::size_t we, std::size_t limit) const {
    const std::size_t after = skip_space(we);
    return uniform_word(w) || w == "const" || w == "volatile" ||
           (after < limit && (word_start(after) || s_[after] == '*' ||
                              (s_[after] == '<' && s_[after + 1] != '<' && s_[after + 1] != '=') ||
                              (s_[after] == ':' && s_[after + 1] == ':') ||
                              (s_[after] == '&' && s_[after + 1] != '&' && s_[after + 1] != '=')));
  }

  // ---- Device functions that wait, inlined into the kernels that call them ---------------------
  //
  // A region loop cannot wait inside a called function: `uint4 o = scan4(v, s, n, block);`, whose
  // callee syncs the block passed to it, keeps its kernel on fibers. Where the call is a statement
  // of the kernel (`f(a);`, `T x = f(a) rest;`, `lhs = f(a) rest;`, `rest` without calls or
  // side effects) and the callee a plain device function of this text, defined before the kernel,
  // whose only return is its last statement, the statement becomes the callee's body:
  //
  //   P1 gpulab_inN_M_p1 = (a1); ...            (the parameters, as the call initializes them)
  //   #line <the callee's first line>
  //   ... the callee's body, its parameters and locals renamed; `return e;` -> `R gpulab_inN_M_ =
  //   e;` #line <the call's line> T x = gpulab_inN_M_ rest;
  //
  // A block group parameter takes the argument's name (the kernel's group: a thread_block holds no
  // state). The body keeps its own lines, so faults and barriers name them as before. C++ sequences
  // an assignment's right side before its left, and the callee's arguments before its body, as
  // this order does. The kernel then holds the barrier itself: region loops where every thread
  // provably reaches it together, else a coroutine. A callee the rules below cannot vouch for
  // (a name of the kernel it could capture, a macro that names its locals, an early return, ...)
  // is left called.
  struct Callee {
    Function f;
    std::size_t begin = 0;  // the definition's first character
    std::string result;     // its return type, as written; "void" for none
    std::vector<Parameter> params;
    std::vector<std::string> types;              // each parameter's type, as written
    std::vector<bool> group;                     // a block group parameter
    std::size_t ret = npos;                      // `return` of its last statement
    std::set<std::string, std::less<>> renamed;  // parameters and locals
    std::set<std::string, std::less<>> names;    // every other name it says
  };

  // The code text of [b, e) on one line; nothing when it holds a comment, a literal or a
  // preprocessor line.
  std::optional<std::string> one_line(std::size_t b, std::size_t e) const {
    std::string t;
    for (std::size_t k = b; k < e; ++k) {
      const char c = s_[k];
      const bool space = std::isspace(static_cast<unsigned char>(c));
      if (!code_[k] && !space) return std::nullopt;
      t += space ? ' ' : c;
    }
    return t;
  }

  // The line a compiler gives position p (after the last `#line N` before it, if any).
  std::size_t line_of(std::size_t p) const {
    std::size_t from = 0, line = 1;
    if (const std::size_t d = s_.rfind("\n#line ", p); d != npos) {
      line = std::strtoul(std::string(s_.substr(d + 7, 12)).c_str(), nullptr, 10);
      from = s_.find('\n', d + 1) + 1;
    }
    return line +
           static_cast<std::size_t>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(from),
                                               s_.begin() + static_cast<std::ptrdiff_t>(p), '\n'));
  }

  // Whether the type text t names a block group (`cg::thread_block`, `const thread_block&`).
  bool group_type(std::string t) const {
    std::erase_if(t,
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '&'; });
    if (t.starts_with("const")) t.erase(0, 5);
    if (t == "thread_block") return using_groups_;
    const std::size_t q = t.find("::");
    return q != std::string::npos && t.substr(q + 2) == "thread_block" &&
           group_namespaces_.contains(t.substr(0, q));
  }

  // Whether f takes a block group (which it may sync: region loops cannot see that).
  bool group_parameter(const Function& f) const {
    for (std::size_t k = f.params_open; k < f.params_close; ++k) {
      if (word_start(k) && s_.substr(k, word_end(k) - k) == "thread_block") return true;
    }
    return false;
  }

  // The words a name may not be though it is no parameter's or local's of a callee: CUDA's and
  // C++'s own.
  static bool builtin_word(std::string_view w) {
    static constexpr std::array<std::string_view, 18> kWords{
        "threadIdx", "return", "for",     "while",   "if",   "else",  "do",    "break", "continue",
        "switch",    "case",   "default", "nullptr", "uint", "uint4", "uint2", "this",  "new"};
    return type_word(w) || uniform_word(w) || one_of(w, kWords);
  }

  // The callee defined by f (after `__device__` at `word`), or nothing when it cannot be inlined.
  std::optional<Callee> callee(const Function& f, std::size_t word) const {
    Callee c;
    c.f = f;
    c.begin = npos;
    // Its first character: after the code before it (a ';' or brace) and any preprocessor line.
    std::size_t b = word;
    while (b > 0 && !(code_[b - 1] && (s_[b - 1] == ';' || s_[b - 1] == '{' || s_[b - 1] == '}')))
      --b;
    std::string result;
    for (std::size_t k = b; k < f.params_open;) {
      if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) {
        ++k;
        continue;
      }
      if (s_[k] == '#' && preprocessor_line(k)) {
        while (k < f.params_open && s_[k] != '\n') ++k;
        continue;
      }
      if (c.begin == npos) c.begin = k;
      if (word_start(k)) {
        const std::string_view w = s_.substr(k, word_end(k) - k);
        static constexpr std::array<std::string_view, 8> kQualifiers{
            "inline",       "__inline__", "__device__", "__forceinline__",
            "__noinline__", "static",     "__host__",   "constexpr"};
        if (w == "template" || w == "operator" || w == "auto" || w == "decltype" || w == "extern" ||
            w == "__global__")
          return std::nullopt;
        if (!one_of(w, kQualifiers)) result += std::string(w) + " ";
        k = word_end(k);
        continue;
      }
      if (s_[k] == ':' && k + 1 < f.params_open && s_[k + 1] == ':') {
        if (!result.empty() && result.back() == ' ') result.pop_back();
        result += "::";
        k += 2;
        continue;
      }
      if (s_[k] != '*') return std::nullopt;  // a reference, template, attribute, ...
      result += "* ";
      ++k;
    }
    // Its name was the last word.
    const std::string_view name = word_before(f.params_open);
    if (result.size() <= name.size() + 1) return std::nullopt;
    result.resize(result.size() - name.size() - 1);
    while (!result.empty() && result.back() == ' ') result.pop_back();
    c.result = result;
    const auto params = parameter_names(f);
    if (!params) return std::nullopt;
    c.params = *params;
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      const Parameter& p = c.params[i];
      std::size_t start = p.at;
      while (start > f.params_open + 1 && !(code_[start - 1] && s_[start - 1] == ',')) --start;
      const auto type = one_line(start, p.at);
      // Nothing but the name after it: no array parameter.
      const std::size_t after = skip_space(p.at + p.name.size());
      if (!type || (after != f.params_close && s_[after] != ',')) return std::nullopt;
      const bool group = group_type(*type);
      if (!group && type->find_first_of("&[(") != std::string::npos) return std::nullopt;
      c.types.push_back(*type);
      c.group.push_back(group);
      c.renamed.emplace(p.name);
    }
    // The body: a return only as its last statement; nothing that names the function's own
    // frame or storage, or leaves it another way.
    static constexpr std::array<std::string_view, 18> kRefused{
        "goto",         "asm",       "__asm__",  "throw",   "try",        "catch",
        "co_await",     "co_return", "co_yield", "static",  "__shared__", "extern",
        "thread_local", "this",      "setjmp",   "longjmp", "template",   "using"};
    TopLevel top;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) continue;
      const char ch = s_[k];
      const bool statement = top.statement(ch);
      if (ch == '#' || (ch == '[' && lambda_at(k))) return std::nullopt;
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      if (one_of(w, kRefused) || (statement && untypable_word(w))) return std::nullopt;
      if (w == "return") {
        if (!statement || c.ret != npos) return std::nullopt;
        const std::size_t semi = statement_end(we, f.end);
        if (semi == npos || skip_space(semi + 1) != f.end) return std::nullopt;
        if ((c.result == "void") != (skip_space(we) == semi)) return std::nullopt;
        c.ret = k;
      } else if (statement && !statement_word(w)) {
        // A declaration at the body's top level: its names are renamed (the body joins the
        // kernel's scope).
        const std::size_t after = skip_space(we);
        const bool declaration = declaration_start(w, we, f.end);
        if (after < f.end && s_[after] == ':' && s_[after + 1] != ':')
          return std::nullopt;  // label
        // `ns::f(x);`, `a::b::g(y);`: a call, no declaration.
        std::size_t q = we;
        for (;;) {
          const std::size_t n = punct_at(skip_space(q), "::");
          if (n == npos || n >= f.end || !word_start(n)) break;
          q = word_end(n);
        }
        const bool qualified_call = q != we && skip_space(q) < f.end && s_[skip_space(q)] == '(';
        if (declaration && !qualified_call) {
          const std::size_t semi = statement_end(k, f.end);
          const auto d = semi == npos ? std::nullopt : parse_declaration(k, semi);
          if (!d) return std::nullopt;
          for (const Declarator& n : d->names) c.renamed.insert(n.name);
        }
      }
      k = we - 1;
    }
    if (c.result != "void" && c.ret == npos) return std::nullopt;
    // Locals of nested scopes (`for (uint i = 0; ...)`, `{ int t = ...; }`) are renamed too: a
    // word after a type's word. Every other name of its signature and body is kept.
    for (std::size_t k = c.begin; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      k = we - 1;
      if (member_at(k + 1 - w.size())) continue;
      const std::string_view before = word_before(we - w.size());
      const std::size_t after = skip_space(we);
      if (we > f.body && !before.empty() && !builtin_word(w) && !statement_word(before) &&
          before != "return" && before != "case" && before != "new" && after < f.end &&
          std::string_view("=;,[").find(s_[after]) != std::string_view::npos &&
          s_[after + 1] != '=') {
        c.renamed.emplace(w);
      }
    }
    for (std::size_t k = c.begin; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      if (!member_at(k) && !c.renamed.contains(w) && !builtin_word(w)) c.names.emplace(w);
      k = we - 1;
    }
    c.names.erase(std::string(name));
    return c;
  }

  // The names a kernel may declare (its parameters, and every word after a word, '*', '&', ','
  // or '>' in its body): a callee's own names must not be among them, or they would stand for
  // the kernel's variables once the body is in the kernel.
  std::set<std::string, std::less<>> declared_names(const Function& f) const {
    std::set<std::string, std::less<>> names;
    if (const auto params = parameter_names(f)) {
      for (const Parameter& p : *params) names.insert(p.name);
    } else {
      names.emplace("");  // unknown: no callee is inlined
    }
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::size_t b = skip_space_back(k), a = skip_space(we);
      if (b > 0 && !member_at(k) &&
          (ident_char(s_[b - 1]) || std::string_view("*&,>").find(s_[b - 1]) != npos) &&
          a < f.end && std::string_view("=;,[():{").find(s_[a]) != npos) {
        names.emplace(s_.substr(k, we - k));
      }
      k = we - 1;
    }
    return names;
  }

  // Macros (object- or function-like) of this text and `elsewhere`, by name: their lines.
  static void macro_lines(std::string_view t,
                          std::map<std::string, std::string, std::less<>>& out) {
    for (std::size_t k = t.find("define"); k != npos; k = t.find("define", k + 1)) {
      std::size_t h = k;
      while (h > 0 && (t[h - 1] == ' ' || t[h - 1] == '\t')) --h;
      if (h == 0 || t[h - 1] != '#') continue;
      std::size_t n = k + 6;
      while (n < t.size() && (t[n] == ' ' || t[n] == '\t')) ++n;
      std::size_t ne = n;
      while (ne < t.size() && ident_char(t[ne])) ++ne;
      std::size_t end = ne;
      while (end < t.size() && (t[end] != '\n' || t[end - 1] == '\\')) ++end;
      out[std::string(t.substr(n, ne - n))] += std::string(t.substr(ne, end - ne)) + "\n";
    }
  }

 public:
  // Whether the body of f names a macro (of `macros`) whose text names a name c renames.
  bool macro_names(const Function& f, const Callee& c,
                   const std::map<std::string, std::string, std::less<>>& macros) const {
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      if (const auto m = macros.find(s_.substr(k, we - k)); m != macros.end()) {
        const std::string& t = m->second;
        for (const std::string& r : c.renamed) {
          for (std::size_t at = t.find(r); at != npos; at = t.find(r, at + 1)) {
            if ((at == 0 || !ident_char(t[at - 1])) && !ident_char(t[at + r.size()])) return true;
          }
        }
      }
      k = we - 1;
    }
    return false;
  }

  // The text with the calls of waiting device functions in this text's kernels inlined (above);
  // nothing when there is none. pass: a number for the names it makes.
  std::optional<std::string> inline_waiting_calls(int pass, std::string_view elsewhere) {
    find_waiting_functions();
    std::map<std::string, std::string, std::less<>> macros;
    macro_lines(s_, macros);
    macro_lines(elsewhere, macros);
    // The waiting device functions defined once in this text, by name.
    std::map<std::string, std::optional<Callee>, std::less<>> callees;
    std::vector<Function> kernels;
    each_function([&](bool kernel, std::size_t word, const Function& f) {
      const std::string name(word_before(f.params_open));
      if (kernel) {
        kernels.push_back(f);
      } else if (waiting_functions_.contains(name) || group_parameter(f)) {
        auto c = callees.contains(name) ? std::nullopt : callee(f, word);
        // An overload: which one is called is not this file's to say. A macro the body names
        // must not name a renamed name.
        if (c && macro_names(f, *c, macros)) c.reset();
        callees[name] = std::move(c);
      }
    });
    int made = 0;
    for (const Function& f : kernels) {
      const auto groups = block_groups(f);
      // A kernel in a macro's continued lines: no line may be added.
      if (!groups || s_.substr(f.body, f.end - f.body).find("\\\n") != npos) continue;
      const auto kernel_names = declared_names(f);
      for (std::size_t k = f.body + 1; k < f.end; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        const auto it = callees.find(s_.substr(k, we - k));
        const std::size_t open = skip_space(we);
        if (it == callees.end() || !it->second || it->second->begin > f.body || member_at(k) ||
            open >= f.end || s_[open] != '(') {
          k = we - 1;
          continue;
        }
        const Callee& c = *it->second;
        const std::size_t close = match_forward(open, ')');
        if (const auto inlined =
                inline_call(f, c, k, open, close, *groups, kernel_names, pass, made)) {
          k = *inlined;
          ++made;
        } else {
          k = we - 1;
        }
      }
    }
    if (made == 0) return std::nullopt;
    calls_inlined_ = made;
    return edited();
  }

  int calls_inlined() const { return calls_inlined_; }

 private:
  // The call of c at [k, close] in kernel f inlined: the end of its statement; nothing when the
  // call is not a statement of the forms above.
  std::optional<std::size_t> inline_call(const Function& f, const Callee& c, std::size_t k,
                                         std::size_t open, std::size_t close,
                                         const BlockGroups& groups,
                                         const std::set<std::string, std::less<>>& kernel_names,
                                         int pass, int made) {
    if (close == npos || close >= f.end) return std::nullopt;
    for (const std::string& n : c.names) {
      if (kernel_names.contains(n)) return std::nullopt;
    }
    if (kernel_names.contains("")) return std::nullopt;
    // The statement: back to the ';' or brace before it, inside no parenthesis.
    std::size_t b = statement_begin(k, f.body);
    if (b == npos) return std::nullopt;
    b = skip_space(b);
    const std::size_t semi = statement_end(b, f.end);
    if (semi == npos || semi < close) return std::nullopt;
    const std::string_view first = word_here(b);
    if (statement_word(first) || first == "else" || first == "do") return std::nullopt;
    // What follows the call: no call, assignment or increment.
    for (std::size_t j = close + 1; j < semi; ++j) {
      if (!code_[j]) continue;
      const char ch = s_[j];
      if (ch == '(' || ch == '{' || (ch == '+' && s_[j + 1] == '+') ||
          (ch == '-' && s_[j + 1] == '-') || ch == ',' || ch == '?')
        return std::nullopt;
      if (ch == '=' && std::string_view("=!<>").find(s_[j - 1]) == npos && s_[j + 1] != '=')
        return std::nullopt;
    }
    std::string head;  // the statement before the call: "", "T x = " or "lhs op= "
    if (b != k) {
      const std::size_t eq = skip_space_back(k);
      if (eq == 0 || s_[eq - 1] != '=' || (eq >= 2 && s_[eq - 2] == '=')) return std::nullopt;
      const auto d = parse_declaration(b, semi);
      if (d) {
        if (d->names.size() != 1 || d->names.front().eq + 1 != eq) return std::nullopt;
      } else {
        // `lhs = f(...)`, `lhs += f(...)`: the left side has no '=', call, '?' or label of its own.
        for (std::size_t j = b; j + 1 < eq; ++j) {
          if (!code_[j]) continue;
          const char ch = s_[j];
          if (ch == '=' || ch == '?' || ch == ';' || ch == '{' ||
              (ch == ':' && s_[j + 1] != ':' && (j == 0 || s_[j - 1] != ':')))
            return std::nullopt;
          if (ch == '(' && ident_char(s_[skip_space_back(j) - 1])) return std::nullopt;
        }
      }
      const auto h = one_line(b, k);
      if (!h) return std::nullopt;
      head = *h;
    } else if (skip_space(close + 1) != semi) {
      return std::nullopt;
    }
    if (c.result == "void" && !head.empty()) return std::nullopt;
    // The arguments, one per parameter.
    std::vector<std::pair<std::size_t, std::size_t>> args;
    {
      std::size_t a = open + 1;
      int depth = 0;
      for (std::size_t j = open + 1; j <= close; ++j) {
        if (!code_[j]) continue;
        const char ch = s_[j];
        if (ch == '(' || ch == '[' || ch == '{') ++depth;
        if ((ch == ')' || ch == ']' || ch == '}') && j < close) --depth;
        if ((depth == 0 && ch == ',') || j == close) {
          if (skip_space(a) < j) args.emplace_back(a, j);
          a = j + 1;
        }
      }
    }
    if (args.size() != c.params.size()) return std::nullopt;
    const std::string prefix =
        "gpulab_in" + std::to_string(pass) + "_" + std::to_string(made) + "_";
    std::map<std::string, std::string, std::less<>> rename;
    for (const std::string& r : c.renamed) rename[r] = prefix + r;
    std::string text;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto arg = one_line(args[i].first, args[i].second);
      if (!arg) return std::nullopt;
      if (c.group[i]) {
        // The kernel's own group, by its name.
        const std::size_t a = skip_space(args[i].first);
        const std::string_view g = word_here(a);
        if (g.empty() || !groups.names.contains(g) || skip_space(a + g.size()) != args[i].second)
          return std::nullopt;
        rename[c.params[i].name] = std::string(g);
        continue;
      }
      // Another call of a waiting function in an argument: not this pass's.
      for (std::size_t j = args[i].first; j < args[i].second; ++j) {
        if (word_start(j) && waiting_functions_.contains(s_.substr(j, word_end(j) - j)))
          return std::nullopt;
      }
      text += c.types[i] + " " + prefix + c.params[i].name + " = (" + *arg + "); ";
    }
    text += "\n#line " + std::to_string(line_of(c.f.body)) + "\n";
    for (std::size_t j = c.f.body + 1; j < c.f.end; ++j) {
      if (j == c.ret) {
        text += c.result == "void" ? "" : c.result + " " + prefix + " =";
        j += 5;
        continue;
      }
      if (word_start(j)) {
        const std::size_t we = word_end(j);
        const auto r = rename.find(s_.substr(j, we - j));
        text += r != rename.end() && !member_at(j) ? r->second : std::string(s_.substr(j, we - j));
        j = we - 1;
        continue;
      }
      text += s_[j];
    }
    text += "\n#line " + std::to_string(line_of(b)) + "\n";
    if (head.empty()) {
      text += blank_lines(b, semi) + ";";
    } else {
      text += head + prefix + blank_lines(b, close + 1) +
              std::string(s_.substr(close + 1, semi - close));
    }
    add_edit(b, semi + 1 - b, text);
    return semi;
  }

  // ---- Deferred atomic adds (docs/simt.md, "Deferred atomic adds"; simt/deferred_add.hpp) ------
  //
  // `atomicAdd(p, v);` as a statement after which its thread does nothing (only closing braces
  // follow, of the kernel's body, a plain block, an `if` without `else` or an `else`), in a kernel
  // that waits for nothing, spins on nothing, reads nothing through volatile and fences nothing,
  // becomes `::gpulab::simt::detail::deferred_add(p, v);`: no operation of the thread comes after
  // the add and none of another thread is ordered after it, so it may land at the end of its
  // block's loop, combined with the others to the same address. The number of statements changed.
  int defer_atomic_adds(const Function& f) {
    if (atomic_add_defined_) return 0;
    std::vector<std::size_t> sites;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k]) continue;
      if ((s_[k] == '[' && lambda_at(k)) || (s_[k] == '<' && at(k, "<<<")) ||
          (s_[k] == '#' && preprocessor_line(k)))
        return 0;
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      if (awaitable_of(w) || refused_word(w) || spin_word(w) || region_refused_word(w) ||
          w == "volatile" || w.starts_with("__threadfence") || w.starts_with("atomic") ||
          w == "__syncthreads" || waiting_functions_.contains(w)) {
        if (w != "atomicAdd") return 0;
        const std::size_t open = skip_space(we);
        const std::size_t before = skip_space_back(k);
        const char p = before > 0 ? s_[before - 1] : ';';
        if (open >= f.end || s_[open] != '(' || member_at(k) ||
            !(p == ';' || p == '{' || p == '}' || p == ')' || word_before(k) == "else"))
          return 0;
        const std::size_t close = match_forward(open, ')');
        if (close == npos || close >= f.end) return 0;
        const std::size_t semi = skip_space(close + 1);
        if (semi >= f.end || s_[semi] != ';' || !last_action(f, semi + 1)) return 0;
        // `if (c) atomicAdd(...);`: the header is an if's.
        if (p == ')') {
          const std::size_t h = match_back(before - 1, '(');
          if (h == npos || word_before(h) != "if") return 0;
        }
        sites.push_back(k);
      }
      k = we - 1;
    }
    for (const std::size_t k : sites) add_edit(k, 9, "::gpulab::simt::detail::deferred_add");
    return static_cast<int>(sites.size());
  }

  // Whether text t defines (or declares) a function atomicAdd: `T atomicAdd(`.
  static bool defines_atomic_add(std::string_view t) {
    for (std::size_t k = t.find("atomicAdd"); k != npos; k = t.find("atomicAdd", k + 1)) {
      std::size_t b = k;
      while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t' || t[b - 1] == '\n')) --b;
      if (k + 9 < t.size() && !ident_char(t[k + 9]) && b > 0 &&
          (ident_char(t[b - 1]) || t[b - 1] == '*') && (k == 0 || !ident_char(t[k - 1]))) {
        std::size_t w = b;
        while (w > 0 && ident_char(t[w - 1])) --w;
        const std::string_view before = t.substr(w, b - w);
        if (before != "return" && before != "else" && before != "do") return true;
      }
    }
    return false;
  }

  // After the branch that starts at b (`{ ... }`, `if (c) ...` with its own branches, or a
  // statement without braces): one past its end; npos if it cannot be told.
  std::size_t skip_branch(std::size_t b, std::size_t end) const {
    if (b >= end) return npos;
    if (s_[b] == '{') {
      const std::size_t close = match_forward(b, '}');
      return close == npos || close >= end ? npos : close + 1;
    }
    if (const std::size_t h = word_at(b, "if"); h != npos) {
      if (h >= end || s_[h] != '(') return npos;
      const std::size_t close = match_forward(h, ')');
      if (close == npos || close >= end) return npos;
      std::size_t after = skip_branch(skip_space(close + 1), end);
      while (after != npos && word_at(skip_space(after), "else") != npos)
        after = skip_branch(word_at(skip_space(after), "else"), end);
      return after;
    }
    if (const std::string_view w = word_here(b); statement_word(w) || w == "do")
      return npos;  // a loop, a switch, a jump, ... as the branch
    const std::size_t semi = statement_end(b, end);
    return semi == npos ? npos : semi + 1;
  }

  // Whether nothing but closing braces follow `p` in kernel f, each of the kernel's body, a plain
  // block, an `if` without else, or an else.
  bool last_action(const Function& f, std::size_t p) const {
    for (;;) {
      std::size_t c = skip_space(p);
      // An if's branch that just ended: its else does not run after it.
      while (c < f.end && word_at(c, "else") != npos) {
        c = skip_branch(word_at(c, "else"), f.end);
        if (c == npos) return false;
        c = skip_space(c);
      }
      if (c >= f.end) return c == f.end;
      if (s_[c] != '}') return false;
      const std::size_t open = match_back(c, '{');
      if (open == npos || open < f.body) return false;
      const std::size_t before = skip_space_back(open);
      const char q = before > 0 ? s_[before - 1] : ';';
      if (q == ')') {
        const std::size_t h = match_back(before - 1, '(');
        if (h == npos || word_before(h) != "if") return false;
      } else if (!(q == ';' || q == '{' || q == '}' || word_before(open) == "else")) {
        return false;
      }
      p = c + 1;
    }
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

    const std::string hoisted = hoist(dynamic_shared, true);
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
  // lines stay, blank. With `rebind`, each `extern __shared__ T name[];` that moved ahead of a
  // coroutine is bound again where it stood: the rewrite (run/rewrite.cpp) makes the hoisted name
  // a reference to the block's window, a local that the coroutine's lambda, which captures
  // nothing, cannot use; its type (decltype uses nothing) can, and the coroutine binds its own
  // reference when the thread reaches the declaration, as the kernel as written does.
  std::string hoist(const std::vector<std::pair<std::size_t, std::size_t>>& declarations,
                    bool rebind = false) {
    std::string hoisted;
    for (const auto& [b, e] : declarations) {
      for (std::size_t k = b; k <= e; ++k) {
        const char c = s_[k];
        hoisted += code_[k] && c != '\n' && c != '\r' ? c : ' ';
      }
      hoisted += ' ';
      std::string again;
      if (rebind) {
        const std::string name = dynamic_shared_name(b, e);
        const std::string type = "gpulab_dynamic_shared_" + name + "_t";
        if (!name.empty()) {
          again = "using " + type + " = decltype(" + name + "); " + type + " " + name +
                  " = reinterpret_cast<" + type +
                  ">(*::gpulab::simt::detail::dynamic_shared_window());";
        }
      }
      add_edit(b, e + 1 - b, again + blank_lines(b, e + 1));
    }
    return hoisted;
  }

  // The name `extern __shared__ T name[];` at [b, e] declares ("" when there is no `name[`).
  std::string dynamic_shared_name(std::size_t b, std::size_t e) const {
    std::size_t open = npos;
    for (std::size_t k = b; k <= e; ++k) {
      if (code_[k] && s_[k] == '[') open = k;
    }
    if (open == npos) return {};
    std::size_t end = skip_space_back(open);
    std::size_t begin = end;
    while (begin > b && ident_char(s_[begin - 1])) --begin;
    return std::string(s_.substr(begin, end - begin));
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
    // A function-like macro of the program (`#define IMUL(a, b) __mul24(a, b)`) whose
    // replacement assigns nothing and calls only what takes values.
    if (const auto m = function_macros_.find(callee); m != function_macros_.end())
      return !value_macro(m->second);
    return !value_function(callee);
  }

  // Functions that take their arguments by value: printf, min, max and the like, CUDA's
  // intrinsics (`__expf`, `__shfl_sync`, ...) and the math library's float forms (`expf`).
  static constexpr std::array<std::string_view, 12> kByValue{"printf", "min",   "max",    "abs",
                                                             "fabs",   "fminf", "fmaxf",  "fabsf",
                                                             "sqrtf",  "sqrt",  "rsqrtf", "assert"};
  static bool value_function(std::string_view callee) {
    return one_of(callee, kByValue) || callee.starts_with("__") ||
           (callee.size() > 3 && callee.back() == 'f' &&
            std::all_of(callee.begin(), callee.end(), [](char c) {
              return std::islower(static_cast<unsigned char>(c)) ||
                     std::isdigit(static_cast<unsigned char>(c));
            }));
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
        // (`a && name`: the '&' before is the first of `&&`.)
        if (!(ident_char(p) || p == ')' || p == ']' || (p == '&' && prev == before - 1))) {
          return true;
        }
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
      // A type's name before the name it declares (`for (uint i = 0; ...)`): no value.
      if (skip_space(we) < e && word_start(skip_space(we))) continue;
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
      if (var->at >= b) return false;
      // Set again to a value alike in every thread before this use (`i = BLOCK_SIZE / 2;` ahead
      // of a tree, after the same i indexed a grid-stride loop): what it held before is gone.
      if (const std::size_t reset = uniform_reset(*var, start, f, params, vars, depth, thread);
          reset != npos) {
        if (!uniform_updates(*var, f, params, vars, depth, thread, reset)) return false;
        continue;
      }
      if (var->eq == std::string::npos || !uniform_updates(*var, f, params, vars, depth, thread) ||
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
  // With `from`, only the assignments after that position count (uniform_reset's).
  bool uniform_updates(const RegionVar& v, const Function& f, const std::vector<Parameter>& params,
                       const std::vector<RegionVar>& vars, int depth, bool thread,
                       std::size_t from = 0) const {
    if (!assigned(v.name, std::max(from, f.body + 1), f.end, v.at,
                  v.type.find('*') == std::string::npos))
      return true;
    if (region_scopes_ == nullptr || v.loop_var) return false;
    if (std::find(assuming_.begin(), assuming_.end(), v.name) != assuming_.end()) return true;
    for (std::size_t k = std::max(from, f.body + 1); k < f.end; ++k) {
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

  // The last `v = e;` before `use` (the end of that statement) that every thread runs alike: a
  // statement at the top level of a barrier scope that holds `use`, e alike in every thread;
  // npos if none. Every path to `use` passes it (no goto in a region kernel; a loop that holds
  // both runs it again before `use`), so v's earlier values do not matter there.
  std::size_t uniform_reset(const RegionVar& v, std::size_t use, const Function& f,
                            const std::vector<Parameter>& params,
                            const std::vector<RegionVar>& vars, int depth, bool thread) const {
    if (region_scopes_ == nullptr || v.loop_var) return npos;
    std::size_t found = npos;
    for (std::size_t k = v.at + 1; k < use; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      if (s_.substr(k, we - k) != v.name || member_at(k)) {
        k = we - 1;
        continue;
      }
      const std::size_t after = skip_space(we);
      const std::size_t open = enclosing_open(k, f.body);
      const auto scope = region_scopes_->find(open);
      if (after < use && s_[after] == '=' && s_[after + 1] != '=' &&
          scope != region_scopes_->end() && scope->second.braced && scope->second.open < use &&
          use < scope->second.close && statement_at_top(open, k)) {
        const std::size_t semi = statement_end(after, scope->second.close);
        // The right side must not name v (`i = i / 2;` keeps what i held).
        bool names_v = false;
        for (std::size_t j = after + 1; semi != npos && j < semi; ++j) {
          if (!word_start(j)) continue;
          if (s_.substr(j, word_end(j) - j) == v.name && !member_at(j)) names_v = true;
          j = word_end(j) - 1;
        }
        if (semi != npos && semi < use && !names_v &&
            uniform(after + 1, semi, f, params, vars, depth + 1, thread)) {
          found = semi;
        }
      }
      k = we - 1;
    }
    return found;
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
      if (ne == n) continue;
      const bool function_like = ne < s_.size() && s_[ne] == '(';
      std::size_t j = ne;
      if (function_like) {  // its parameters are no part of the replacement
        while (j < s_.size() && s_[j] != ')' && s_[j] != '\n') ++j;
        if (j >= s_.size() || s_[j] != ')') continue;
        ++j;
      }
      std::string body = " ";
      for (; j < s_.size() && s_[j] != '\n'; ++j) {
        if (s_[j] == '\\' && j + 1 < s_.size() && s_[j + 1] == '\n') {
          ++j;  // a continued line
          continue;
        }
        body += code_[j] ? s_[j] : ' ';
      }
      (function_like ? function_macros_ : macros_)[std::string(s_.substr(n, ne - n))] += body;
      k = j;
    }
  }
  // Whether a function-like macro's replacement only computes a value from its arguments: no
  // assignment, increment or address taken, and every call one of CUDA's intrinsics (`__mul24`),
  // the math library's float forms (`expf`), min/max and the like, or another such macro.
  bool value_macro(std::string_view t, int depth = 0) const {
    if (depth > 8) return false;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const char c = t[k];
      const char next = k + 1 < t.size() ? t[k + 1] : ' ';
      const char prev = k > 0 ? t[k - 1] : ' ';
      if (c == '=' && next != '=' && std::string_view("=!<>").find(prev) == std::string_view::npos)
        return false;  // `=`, `+=`, `<<=` (`==`, `!=`, `<=`, `>=` compare)
      if ((c == '+' || c == '-') && next == c) return false;
      if (c == '&' && next != '&' && prev != '&') {
        // `a & b` masks; a unary `&` (after an operator or `(`) takes an address.
        std::size_t b = k;
        while (b > 0 && std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
        if (b == 0 || !(ident_char(t[b - 1]) || t[b - 1] == ')' || t[b - 1] == ']')) return false;
      }
      if (!ident_char(c) || (k > 0 && ident_char(prev))) continue;
      std::size_t e = k;
      while (e < t.size() && ident_char(t[e])) ++e;
      std::size_t after = e;
      while (after < t.size() && std::isspace(static_cast<unsigned char>(t[after]))) ++after;
      const std::string_view w = t.substr(k, e - k);
      k = e - 1;
      if (after >= t.size() || t[after] != '(' || std::isdigit(static_cast<unsigned char>(w[0])))
        continue;
      // A cast or sizeof (`int(x)`, `static_cast<int>(x)`) takes a value too.
      if (value_function(w) || type_word(w) || w == "sizeof" || w == "static_cast") continue;
      const auto m = function_macros_.find(w);
      if (m == function_macros_.end() || !value_macro(m->second, depth + 1)) return false;
    }
    return true;
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
        // `const int w = 32;` at file scope (OLCF's `const int block_size = 32;`): a constant of
        // the whole program, not a pointer to one.
        if (file_scope(k) && head.find_first_of("*&") == std::string_view::npos) {
          for (std::size_t j = b; j < k; ++j) {
            if (word_start(j) && word_end(j) == j + 5 && s_.substr(j, 5) == "const") return true;
          }
        }
      }
    }
    return false;
  }

  // Whether p stands outside every brace (at file or namespace scope: a namespace's braces aside
  // would need more; those count as inside).
  bool file_scope(std::size_t p) const {
    return enclosing_open(p, 0) == 0 && !(code_[0] && s_[0] == '{');
  }

  // A bounds check whose barriers every thread reaches only if the block's threads agree on it:
  // the first statement of the kernel's body after its locals' declarations, `if (c) { ... }`
  // with barriers inside (its else too, as for a uniform if), or `if (c) return;` (braces or
  // not) before the first barrier. keyword: the `if`; return_at: the `return` of the second form.
  // Where a kept local lives in region loops: its per-thread slot, the block's (computed once),
  // or computed again in each region from threadIdx.
  enum class Kept { slot, block, thread };

  struct Guard {
    std::size_t keyword = npos, header_open = npos, header_close = npos, return_at = npos;
  };

  std::optional<Guard> bounds_guard(const Function& f, const std::vector<std::size_t>& barriers) {
    TopLevel top;
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) continue;
      if (!top.statement(s_[k])) continue;
      if (!word_start(k)) return std::nullopt;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      if (w != "if") {
        // A declaration (the checks of guard_holds), or anything else: no guard.
        if (w == "__shared__" || w == "static" || w == "constexpr" || w == "extern" ||
            (!statement_word(w) && declaration_start(w, we, f.end))) {
          continue;
        }
        return std::nullopt;
      }
      Guard g;
      g.keyword = k;
      g.header_open = skip_space(we);
      if (g.header_open >= f.end || s_[g.header_open] != '(') return std::nullopt;
      g.header_close = match_forward(g.header_open, ')');
      if (g.header_close == npos || g.header_close >= f.end || barriers.front() < k) {
        return std::nullopt;
      }
      std::size_t branch = skip_space(g.header_close + 1);
      bool braced = false;
      if (branch < f.end && s_[branch] == '{') {
        braced = true;
        const std::size_t close = match_forward(branch, '}');
        if (close == npos || close > f.end) return std::nullopt;
        const std::size_t first = skip_space(branch + 1);
        if (barriers.front() < close) return g;  // `if (c) { ... __syncthreads(); ... }`
        branch = first;
      }
      // `if (c) return;` or `if (c) { return; }`, no else.
      const std::size_t semi = word_at(branch, "return");
      if (semi == npos || semi >= f.end || s_[semi] != ';') return std::nullopt;
      std::size_t after = skip_space(semi + 1);
      if (braced) {
        if (after >= f.end || s_[after] != '}') return std::nullopt;
        after = skip_space(after + 1);
      }
      if (word_at(after, "else") != npos) return std::nullopt;
      g.return_at = branch;
      return g;
    }
    return std::nullopt;
  }

  // Whether the guard g may be checked ahead of the region loops, and the kernel re-run as written
  // where the threads disagree: its condition computes a thread's value from threadIdx, blockIdx,
  // by-value parameters, constants and locals computed from those (never assigned), and every
  // statement before it declares such a local, or static storage that names no local: nothing a
  // thread did before the guard can be seen by another thread, or would be done twice.
  bool guard_holds(const Guard& g, const Function& f, const std::vector<Parameter>& params,
                   const std::vector<RegionVar>& vars, const std::vector<Kept>& kept,
                   const std::vector<std::pair<std::size_t, std::size_t>>& statics,
                   const std::vector<std::pair<std::size_t, std::size_t>>& dynamic_shared) const {
    if (!uniform(g.header_open + 1, g.header_close, f, params, vars, 0, true)) return false;
    for (std::size_t k = g.header_open + 1; k < g.header_close; ++k) {
      if (!code_[k] && !std::isspace(static_cast<unsigned char>(s_[k]))) return false;
    }
    const auto named = [&](std::size_t b, std::size_t e, auto&& ok) {
      for (std::size_t k = b; k < e; ++k) {
        if (!word_start(k)) continue;
        const std::size_t we = word_end(k);
        for (std::size_t j = 0; j < vars.size(); ++j) {
          if (vars[j].name == s_.substr(k, we - k) && !member_at(k) && !ok(j)) return false;
        }
        k = we - 1;
      }
      return true;
    };
    // The condition's locals are computed in every region (no per-thread slot, written later).
    if (!named(g.header_open + 1, g.header_close,
               [&](std::size_t j) { return kept[j] != Kept::slot; })) {
      return false;
    }
    // The locals declared ahead of the guard: initializers without side effects or reads.
    for (const RegionVar& v : vars) {
      if (v.loop_var || v.at > g.keyword || v.eq == npos) continue;
      if (!uniform(v.eq + 1, v.init_end, f, params, vars, 0, true)) return false;
    }
    // Static storage names no local (it moves ahead of the region loops, where the code as
    // written sees it too), and every __shared__ array is such a declaration.
    for (const auto& [b, e] : statics) {
      if (!named(b, e, [](std::size_t) { return false; })) return false;
    }
    for (std::size_t k = f.body + 1; k < f.end; ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      if (s_.substr(k, we - k) == "__shared__") {
        const auto in = [&](const auto& ranges) {
          return std::any_of(ranges.begin(), ranges.end(),
                             [&](const auto& r) { return k >= r.first && k <= r.second; });
        };
        if (!in(statics) && !in(dynamic_shared)) return false;
      }
      k = we - 1;
    }
    return true;
  }

  // The kernel's body as written (for a block whose threads disagree on its guard), with its
  // static and extern declarations blank (those ahead of the region loops stand for them), between
  // #line directives that give it its own lines and the lines after it theirs.
  std::string code_as_written(const Function& f,
                              const std::vector<std::pair<std::size_t, std::size_t>>& statics,
                              const std::vector<std::pair<std::size_t, std::size_t>>& shared) {
    std::string body(s_.substr(f.body + 1, f.end - f.body - 1));
    for (const auto* ranges : {&statics, &shared}) {
      for (const auto& [b, e] : *ranges) {
        for (std::size_t k = b; k <= e; ++k) {
          if (body[k - f.body - 1] != '\n') body[k - f.body - 1] = ' ';
        }
      }
    }
    return "\n#line " + std::to_string(line_of(f.body + 1)) + "\n{" + body + "}\n#line " +
           std::to_string(line_of(f.end)) + "\n";
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
      // `using T = float;` (an alias, as above; `using namespace` is none), and a structured
      // binding or a forwarding reference (`auto [x, y] = v;`, `auto&& r = ...;`), whose names the
      // per-thread copies cannot declare apart from their initialiser.
      if (w == "using" && !at(next, "namespace")) return false;
      if (w == "auto") {
        std::size_t a = next;
        while (a < f.end && s_[a] == '&') a = skip_space(a + 1);
        if (a < f.end && (s_[a] == '[' || at(next, "&&"))) return false;
      }
      // Warp-synchronous volatile accesses yield, which a region loop cannot, here or in a call.
      if (lockstep_sites_.contains(k) || (call && lockstep_functions_.contains(w))) return false;
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
    // A bounds check around the barriers (`if (row < n && col < n) { ... __syncthreads(); ... }`)
    // or ahead of them (`if (i >= n) return;`): region loops if the block's threads agree on it.
    std::optional<Guard> guard = bounds_guard(f, barriers);
    if (guard && guard->return_at != npos) std::erase(returns, guard->return_at);

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
      TopLevel top;
      for (std::size_t k = scope.open + 1; k < scope.close; ++k) {
        if (!code_[k] || std::isspace(static_cast<unsigned char>(s_[k]))) continue;
        const bool statement = top.statement(s_[k]);
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
          top = TopLevel{};
          continue;
        }
        if (!declaration_start(w, we, scope.close)) continue;
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
        top = TopLevel{};
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
      if (guard && scope.keyword == guard->keyword) continue;  // checked below, at run time
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
    // A barrier's `if` alike in every thread needs no guard (as it did before this form).
    if (guard && guard->return_at == npos &&
        uniform(guard->header_open + 1, guard->header_close, f, *params, vars, 0)) {
      guard.reset();
    }
    if (guard && !guard_holds(*guard, f, *params, vars, kept, statics, dynamic_shared))
      return false;
    // The kernel's code as written, run by a block whose threads disagree on the guard: its
    // static declarations are those hoisted ahead of the region loops (the same arrays), and it
    // keeps its lines (#line).
    std::string as_written;
    if (guard) as_written = code_as_written(f, statics, dynamic_shared);
    std::string prologue = " " + hoist(dynamic_shared);
    std::string statics_text;
    for (const auto& [b, e] : statics) {
      std::string t = (s_.substr(b, 9) == "constexpr" ? " static " : " ") + hoist({{b, e}});
      if (guard) {
        statics_text += t;  // ahead of the region loops, where the code as written sees them
      } else {
        ahead.emplace_back(b, std::move(t));
      }
    }
    prologue += statics_text + "if (auto* gpulab_rl_ = ::gpulab::simt::region::begin(" +
                (guard ? "true" : "") +
                ")) { ::gpulab::simt::region::Block gpulab_rb_(*gpulab_rl_);";
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
    if (guard) {
      // Each thread evaluates the guard (pure: the checks above), as its own code would before
      // doing anything else; the region loops run if every thread's is alike, else the block
      // falls back to the code as written (simt/region.hpp).
      std::string condition;
      for (std::size_t k = guard->header_open + 1; k < guard->header_close; ++k) {
        condition += s_[k] == '\n' ? ' ' : s_[k];
      }
      prologue += " unsigned gpulab_rg_ = 0;" + open_loop.substr(0, open_loop.size() - 6) +
                  " gpulab_rg_ += (" + condition +
                  ") ? 1u : 0u; } } if (gpulab_rg_ != 0 && gpulab_rg_ != gpulab_rb_.threads()) { "
                  "gpulab_rb_.fall_back(); } else { const bool gpulab_ru_ = gpulab_rg_ != 0;";
      add_edit(guard->header_open + 1, guard->header_close - guard->header_open - 1,
               blank_lines(guard->header_open + 1, guard->header_close) + "gpulab_ru_");
    }
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
      if (c.cut == Cut::end) text += guard ? " return; } } " + as_written : " } ";
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

  // ---- Warp-synchronous volatile code (docs/simt.md; simt/lockstep.hpp) ---------------------
  //
  // `s[t] += s[t + 16];` through a `volatile` pointer or array, in a block of code where nothing
  // orders a warp's accesses (no barrier, collective, cooperative group or call of a function
  // that waits anywhere in the innermost `{ }` around it), becomes
  // `::gpulab::simt::lockstep(s)[t] += ::gpulab::simt::lockstep(s)[t + 16];`: each read and
  // write lets the block's other threads run up to their own, so a warp's lanes take them in
  // rounds as a converged warp does. Where a barrier stands in the same block the accesses are
  // ordered by it (NVIDIA's scan reads and writes its volatile array between barriers) and stay
  // as they are. Names: parameters and locals declared `volatile T* name` (one `*`) or
  // `volatile T name[N]` (one dimension); an access is `name[...]`, `*name` or `*(name ...)`.
  void find_lockstep_accesses() {
    if (lockstep_found_) return;
    lockstep_found_ = true;
    each_function([&](bool, std::size_t, const Function& f) {
      const std::string name(word_before(f.params_open));
      std::vector<std::pair<std::string, std::size_t>> names;  // name, where it is in scope
      for (std::size_t k = f.params_open + 1; k < f.end; ++k) {
        if (k == f.params_close) k = f.body;
        if (!word_start(k)) continue;
        const std::size_t e = word_end(k);
        if (s_.substr(k, e - k) == "volatile" && declaration_starts(k, k < f.params_close))
          volatile_declarators(e, f.end, k < f.params_close, names);
        k = e - 1;
      }
      if (names.empty()) return;
      // The accesses, by the innermost block around them (its `{`): position, whether a write.
      std::map<std::size_t, std::vector<std::pair<std::size_t, bool>>> blocks;
      for (std::size_t k = f.body + 1; k < f.end; ++k) {
        if (!word_start(k)) continue;
        const std::size_t e = word_end(k);
        const std::string_view w = s_.substr(k, e - k);
        const auto it = std::find_if(names.begin(), names.end(),
                                     [&](const auto& n) { return n.first == w && k >= n.second; });
        if (it != names.end() && !member_at(k) && access_at(k, e) && !unevaluated_at(k, f.body)) {
          const auto [b, end] = access_extent(k, e);
          const bool write = write_at(b, end);
          blocks[enclosing_open(k, f.body)].emplace_back(k, write);
          // A read is the value, not the reference (`+` before it): printf's `...` and `auto`
          // take the number; one whose address is taken (`&s[t]`) stays a reference.
          const std::size_t before = skip_space_back(b);
          const bool address =
              before > 0 && s_[before - 1] == '&' && (before < 2 || s_[before - 2] != '&');
          if (!write && !address) lockstep_reads_[k] = b;
        }
        k = e - 1;
      }
      for (const auto& [open, accesses] : blocks) {
        const std::size_t close = match_forward(open, '}');
        if (const std::vector<std::size_t> orders = warp_orders(open, close); !orders.empty()) {
          // Lanes that wait for each other in the block are ordered there, but not across the
          // loop's turn: a write after the block's last wait and an access before its first, in
          // a loop's body (Learn CUDA Programming's warp radix sort: a volatile ping-pong buffer
          // read before a ballot and written after it), are unordered.
          if (!loop_body(open)) continue;
          bool write_after = false, access_before = false;
          for (const auto& [at, write] : accesses) {
            write_after = write_after || (write && at > orders.back());
            access_before = access_before || at < orders.front();
          }
          if (!write_after || !access_before) continue;
          for (const auto& access : accesses) lockstep_sites_.insert(access.first);
          lockstep_functions_.insert(name);
          continue;
        }
        // Rounds matter where a lane may read or write what another lane wrote with nothing
        // between: a write followed by another access in the block, or a write repeated by a
        // loop with no barrier in its body. One step between barriers (a tree level with a
        // barrier after it, as threadFenceReduction's) is ordered by them.
        bool needed = false;
        for (std::size_t a = 0; a < accesses.size() && !needed; ++a) {
          if (!accesses[a].second) continue;
          // After the write's statement (`s[t] = s[t] + s[t + 1];` reads first, then writes).
          const std::size_t end = statement_end(accesses[a].first, close);
          needed = accesses.back().first > end || repeated_unordered(accesses[a].first, f.body);
        }
        if (!needed) continue;
        for (const auto& access : accesses) lockstep_sites_.insert(access.first);
        lockstep_functions_.insert(name);
      }
      // A write and the function's next access after it, in another block, with no wait between
      // (a buffer's load ahead of the loop that reads it): both in rounds.
      std::vector<std::pair<std::size_t, bool>> all;
      for (const auto& [open, accesses] : blocks)
        all.insert(all.end(), accesses.begin(), accesses.end());
      std::sort(all.begin(), all.end());
      for (std::size_t a = 0; a < all.size(); ++a) {
        if (!all[a].second) continue;
        const std::size_t end = statement_end(all[a].first, f.end);
        const auto next = std::find_if(all.begin() + static_cast<std::ptrdiff_t>(a) + 1, all.end(),
                                       [&](const auto& x) { return x.first > end; });
        if (next == all.end() ||
            enclosing_open(next->first, f.body) == enclosing_open(all[a].first, f.body)) {
          continue;  // none, or in the same block: the rule above
        }
        if (!warp_orders(end, next->first, true).empty()) continue;
        if (same_element(all[a].first, next->first, f.body)) continue;
        lockstep_sites_.insert(all[a].first);
        lockstep_sites_.insert(next->first);
        lockstep_functions_.insert(name);
      }
    });
  }

  // Where the access of the name at [k, e) begins and ends: `name[...]`, `*name`, `*(name ...)`.
  std::pair<std::size_t, std::size_t> access_extent(std::size_t k, std::size_t e) const {
    const std::size_t after = skip_space(e);
    if (after < s_.size() && s_[after] == '[') {
      const std::size_t close = match_forward(after, ']');
      return {k, close == npos ? e : close + 1};
    }
    std::size_t before = skip_space_back(k);
    if (before > 0 && s_[before - 1] == '(') {
      const std::size_t close = match_forward(before - 1, ')');
      const std::size_t star = skip_space_back(before - 1) - 1;
      return {star, close == npos ? e : close + 1};
    }
    return {before - 1, e};
  }

  // Whether the access [b, end) writes: an assignment, `++` or `--` after it, or `++`/`--`
  // before it.
  bool write_at(std::size_t b, std::size_t end) const {
    const std::size_t after = skip_space(end);
    if (after + 1 < s_.size()) {
      const char c = s_[after], d = s_[after + 1];
      if (c == '=' && d != '=') return true;
      if ((c == '+' && d == '+') || (c == '-' && d == '-')) return true;
      if (std::string_view("+-*/%&|^").find(c) != std::string_view::npos && d == '=') return true;
      if ((c == '<' || c == '>') && d == c && after + 2 < s_.size() && s_[after + 2] == '=')
        return true;
    }
    const std::size_t before = skip_space_back(b);
    return before > 1 && ((s_[before - 1] == '+' && s_[before - 2] == '+') ||
                          (s_[before - 1] == '-' && s_[before - 2] == '-'));
  }

  // Whether pos is inside `sizeof(...)`, `alignof(...)` or `decltype(...)` (no access is made).
  bool unevaluated_at(std::size_t pos, std::size_t body) const {
    int depth = 0;
    for (std::size_t k = pos; k-- > body;) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == ')' || c == ']') ++depth;
      if (c == '(' && depth-- == 0) {
        const std::string_view w = word_before(k);
        if (w == "sizeof" || w == "alignof" || w == "decltype") return true;
        depth = 0;
      }
      if (c == ';' || c == '{' || c == '}') return false;
    }
    return false;
  }

  // Whether the code at pos runs again in a loop (up to the function's body) whose body holds
  // nothing that orders a warp's accesses; the first loop that does orders the outer ones too.
  bool repeated_unordered(std::size_t pos, std::size_t body) const {
    if (braceless_loop(pos)) return true;  // within the innermost block, which orders nothing
    for (std::size_t open = enclosing_open(pos, body);; open = enclosing_open(open, body)) {
      if (loop_body(open)) return !orders_warp(open, match_forward(open, '}'));
      if (open == body) return false;
    }
  }

  // Whether the statement at pos is a loop's body without braces: `for (...) s[t] += ...;`, also
  // behind `if (...)` or `else`.
  bool braceless_loop(std::size_t pos) const {
    const std::size_t begin = statement_begin(pos);
    if (begin == npos) return false;  // within parentheses
    for (std::size_t at = skip_space(begin); at < pos;) {
      if (!word_start(at)) return false;
      const std::size_t e = word_end(at);
      const std::string_view w = s_.substr(at, e - at);
      if (w == "for" || w == "while") return true;
      if (w == "else" || w == "do") {
        at = skip_space(e);
      } else if (w == "if") {
        const std::size_t open = skip_space(e);
        if (open >= pos || s_[open] != '(') return false;
        const std::size_t close = match_forward(open, ')');
        if (close == npos) return false;
        at = skip_space(close + 1);
      } else {
        return false;
      }
    }
    return false;
  }

  // Where the statement holding `p` begins: after the last `;`, `{` or `}` before it (back to
  // `floor`, which is looked at too) outside parentheses and brackets, so that the headers of
  // loops and ifs without braces around it (`for (...) if (c) s[i] = v;`) are in; npos where `p`
  // stands within parentheses or brackets.
  std::size_t statement_begin(std::size_t p, std::size_t floor = 0) const {
    int depth = 0;
    for (std::size_t k = p; k-- > floor;) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == ')' || c == ']') ++depth;
      if ((c == '(' || c == '[') && --depth < 0) return npos;
      if (depth == 0 && (c == ';' || c == '{' || c == '}')) return k + 1;
    }
    return floor;
  }

  // Whether the access at `next` is to the element that the write at `write` made, in each
  // thread: the same name and the same subscript, neither assigned between the two, counting
  // all of each loop that holds the write and not `next` (its later turns run in between). A
  // thread that reads back its own element (NVIDIA's scan: `s_Data[pos] = t;` as a loop's last
  // step, `return s_Data[pos];` after the loop) reads what no other lane wrote: no rounds.
  bool same_element(std::size_t write, std::size_t next, std::size_t body) const {
    const std::size_t name_end = word_end(write);
    const std::string_view name = s_.substr(write, name_end - write);
    if (s_.substr(next, word_end(next) - next) != name) return false;
    auto subscript = [&](std::size_t end) -> std::string {
      const std::size_t open = skip_space(end);
      if (open >= s_.size() || s_[open] != '[') return {};
      const std::size_t close = match_forward(open, ']');
      if (close == npos) return {};
      std::string text;
      for (std::size_t k = open; k <= close; ++k)
        if (!std::isspace(static_cast<unsigned char>(s_[k]))) text += s_[k];
      return text;
    };
    const std::string index = subscript(name_end);
    // One subscript of names and numbers: no call (which may give another value each time), no
    // element or member through a pointer (which another lane may write).
    if (index.empty() || index.find('(') != std::string::npos ||
        index.find('[', 1) != std::string::npos || index.find("->") != std::string::npos ||
        index != subscript(word_end(next))) {
      return false;
    }
    // From the outermost block that holds the write and not `next`, else from the write.
    std::size_t from = write;
    for (std::size_t o = enclosing_open(write, body); o != body; o = enclosing_open(o, body)) {
      const std::size_t close = match_forward(o, '}');
      if (close != npos && next > o && next < close) break;
      from = o;
    }
    from = statement_begin(from);
    if (from == npos) return false;  // the write stands in an expression's parentheses
    std::vector<std::string_view> names{name};
    const std::size_t open = skip_space(name_end), close = match_forward(open, ']');
    for (std::size_t k = open; k < close; ++k) {
      if (!word_start(k)) continue;
      const std::size_t e = word_end(k);
      if (!member_at(k)) names.push_back(s_.substr(k, e - k));
      k = e - 1;
    }
    return std::none_of(names.begin(), names.end(), [&](std::string_view n) {
      return assigned(n, from, next, npos, n != name);
    });
  }

  // Whether the `{` at open is a loop's body: `for (...) {`, `while (...) {`, `do {`.
  bool loop_body(std::size_t open) const {
    if (word_before(open) == "do") return true;
    const std::size_t before = skip_space_back(open);
    if (before == 0 || s_[before - 1] != ')') return false;
    const std::size_t paren = match_back(before - 1, '(');
    if (paren == npos) return false;
    const std::string_view w = word_before(paren);
    return w == "for" || w == "while";
  }

  // Whether the word at k begins a declaration (its qualifiers aside): a parameter's, after `(`
  // or `,`, or a statement's, after `;`, `{` or `}`; not a cast's.
  bool declaration_starts(std::size_t k, bool parameter) const {
    std::size_t b = k;
    for (;;) {
      const std::string_view w = word_before(b);
      if (w != "const" && w != "static" && w != "extern" && w != "__shared__") break;
      b = skip_space_back(b) - w.size();
    }
    const std::size_t before = skip_space_back(b);
    if (before == 0) return !parameter;
    const char p = s_[before - 1];
    return parameter ? (p == '(' || p == ',') : (p == ';' || p == '{' || p == '}');
  }

  // After a `volatile` that ends at `from`: the declarators of its declaration (a parameter's one,
  // up to `,` or `)`; a statement's, up to `;`) that are pointers with one `*` or arrays of one
  // dimension, each with the position after which it is in scope.
  void volatile_declarators(std::size_t from, std::size_t limit, bool parameter,
                            std::vector<std::pair<std::string, std::size_t>>& names) const {
    int stars = 0, dims = 0;
    bool reference = false;
    std::size_t last_star = 0, last_word = npos, last_word_end = npos;
    for (std::size_t k = skip_space(from); k < limit;) {
      const char c = s_[k];
      if (word_start(k)) {
        last_word = k;
        last_word_end = word_end(k);
        k = skip_space(last_word_end);
        continue;
      }
      if (c == '*') {
        ++stars;
        last_star = k;
      } else if (c == '&') {
        reference = true;
      } else if (c == ':' && k + 1 < limit && s_[k + 1] == ':') {
        ++k;
      } else if (c == '<') {
        const std::size_t close = match_forward(k, '>');
        if (close == npos || close >= limit) return;
        k = skip_space(close + 1);
        continue;
      } else if (c == '[') {
        const std::size_t close = match_forward(k, ']');
        if (close == npos || close >= limit) return;
        ++dims;
        k = skip_space(close + 1);
        continue;
      } else if (c == '=' || c == ',' || c == ';' || c == ')') {
        // The declarator ends: its name is the last word, after every `*`.
        if (last_word != npos && !reference && (stars == 0 || last_word > last_star) &&
            ((stars == 1 && dims == 0) || (stars == 0 && dims == 1))) {
          names.emplace_back(std::string(s_.substr(last_word, last_word_end - last_word)),
                             last_word_end);
        }
        if (parameter || c == ';' || c == ')') return;
        std::size_t next = k;
        if (c == '=') {  // the initializer, up to the next declarator or the end
          int depth = 0;
          for (next = k + 1; next < limit; ++next) {
            if (!code_[next]) continue;
            const char d = s_[next];
            if (d == '(' || d == '[' || d == '{') ++depth;
            if (d == ')' || d == ']' || d == '}') {
              if (depth == 0) return;
              --depth;
            }
            if (depth == 0 && (d == ',' || d == ';')) break;
          }
          if (next >= limit || s_[next] == ';') return;
        }
        // `, *q` declares another of the same type.
        stars = dims = 0;
        reference = false;
        last_word = last_word_end = npos;
        k = skip_space(next + 1);
        continue;
      } else {
        return;  // `(`: a function pointer; anything else: no declaration
      }
      k = skip_space(k + 1);
    }
  }

  // Whether the name at [k, e) is read or written there: `name[`, `*name`, `*(name`.
  bool access_at(std::size_t k, std::size_t e) const {
    const std::size_t next = skip_space(e);
    if (next < s_.size() && s_[next] == '[') return true;
    std::size_t before = skip_space_back(k);
    if (before > 0 && s_[before - 1] == '(') before = skip_space_back(before - 1);
    if (before == 0 || s_[before - 1] != '*') return false;
    // A unary `*`: what stands before it is no operand.
    const std::size_t prev = skip_space_back(before - 1);
    if (prev == 0) return true;
    const char p = s_[prev - 1];
    if (ident_char(p)) return word_before(prev) == "return";
    return p != ')' && p != ']';
  }

  // Whether code in [b, e) may order a warp's accesses: a barrier or collective, cooperative
  // groups, or a call of a device function that waits.
  bool orders_warp(std::size_t b, std::size_t e) const { return !warp_orders(b, e, true).empty(); }

  // Where in [b, e) a warp's lanes wait for each other (a barrier, a collective, a group's sync,
  // a call of a function that waits): the first only, with `first_only`.
  std::vector<std::size_t> warp_orders(std::size_t b, std::size_t e,
                                       bool first_only = false) const {
    std::vector<std::size_t> at;
    for (std::size_t k = b; k < e && k < s_.size(); ++k) {
      if (!word_start(k)) continue;
      const std::size_t we = word_end(k);
      const std::string_view w = s_.substr(k, we - k);
      if (awaitable_of(w) || refused_word(w) || waiting_functions_.contains(w) ||
          (w == "sync" && member_at(k))) {
        at.push_back(k);
        if (first_only) break;
      }
      k = we - 1;
    }
    return at;
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
  // Warp-synchronous volatile accesses: where each name read or written through lockstep()
  // stands, and the device functions that hold one (find_lockstep_accesses).
  std::set<std::size_t> lockstep_sites_;
  // Of the accesses, the reads: where the `+` that makes each a value goes.
  std::map<std::size_t, std::size_t> lockstep_reads_;
  std::set<std::string, std::less<>> lockstep_functions_;
  bool lockstep_found_ = false;
  // The names of the cooperative_groups namespace, and whether it is used whole.
  std::set<std::string, std::less<>> group_namespaces_{"cooperative_groups"};
  bool using_groups_ = false;
  // Object-like macros, by name: their replacement text (comments blank).
  std::map<std::string, std::string, std::less<>> macros_;
  // Function-like macros, by name: their replacement text, parameters aside.
  std::map<std::string, std::string, std::less<>> function_macros_;
  int calls_inlined_ = 0;
  // The program defines a function of its own named atomicAdd: no add is deferred.
  bool atomic_add_defined_ = false;
};

}  // namespace

Split split_kernels(std::string_view source, bool coroutines, bool regions,
                    std::string_view elsewhere) {
  if (!coroutines) return Splitter(source, coroutines, regions).run(elsewhere);
  // Waiting device functions inlined into the kernels that call them, a level at each pass (a
  // callee's own calls are the next pass's), while the text stays within bounds.
  std::string text(source);
  int inlined = 0;
  for (int pass = 0; pass < 8 && text.size() < 4 * source.size() + 65536; ++pass) {
    Splitter splitter(text, coroutines, regions);
    auto next = splitter.inline_waiting_calls(pass, elsewhere);
    if (!next) break;
    inlined += splitter.calls_inlined();
    text = std::move(*next);
  }
  Split out = Splitter(text, coroutines, regions).run(elsewhere);
  out.inlined = inlined;
  return out;
}

}  // namespace gpulab::run
