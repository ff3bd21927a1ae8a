// Rewriting CUDA source for the emulator (see rewrite.hpp).
//
// The rewrite is lexical: comments, string and character literals are skipped; everything else is
// code. Three things change, all on the line where they stand, so that compile errors and reports
// point at the user's own lines:
//   callee<<<cfg>>>(args)         ->  ::gpulab::rt::launch(site, address, body, config(cfg))(args)
//   extern __shared__ T name[];   ->  extern __shared__ T (*name), the pointer to the block's
//                                     window of dynamic shared memory
//   __global__ void k(...) {...}  ->  the same, then (on its last line) k registered by address, so
//                                     that a graph's kernel node can name it by a void*
//   unsupported features          ->  listed, so gpulab can name them before g++ sees them
#include "run/rewrite.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "core/hash.hpp"

namespace gpulab::run {

std::vector<bool> code_mask(std::string_view s) {
  std::vector<bool> code(s.size(), true);
  std::size_t i = 0;
  const auto mark = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < s.size(); ++k) code[k] = false;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      std::size_t e = i;
      // A line comment ends at a newline that is not escaped.
      while (e < s.size() && !(s[e] == '\n' && (e == 0 || s[e - 1] != '\\'))) ++e;
      mark(i, e);
      i = e;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t e = s.find("*/", i + 2);
      const std::size_t end = e == std::string_view::npos ? s.size() : e + 2;
      mark(i, end);
      i = end;
    } else if (c == 'R' && i + 1 < s.size() && s[i + 1] == '"' &&
               (i == 0 ||
                !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      // Raw string: R"delim( ... )delim"
      const std::size_t open = s.find('(', i + 2);
      if (open == std::string_view::npos) break;
      std::string close(1, ')');
      close.append(s.substr(i + 2, open - i - 2));
      close.push_back('"');
      const std::size_t e = s.find(close, open);
      const std::size_t end = e == std::string_view::npos ? s.size() : e + close.size();
      mark(i, end);
      i = end;
    } else if (c == '"' ||
               (c == '\'' &&
                !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) &&
                  i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))))) {
      // A string or character literal (a ' between two digits is a digit separator: 1'000).
      std::size_t e = i + 1;
      while (e < s.size() && s[e] != c && s[e] != '\n') {
        if (s[e] == '\\') ++e;
        ++e;
      }
      mark(i, e + 1);
      i = e + 1;
    } else {
      ++i;
    }
  }
  return code;
}

std::size_t matching_close(std::string_view s, const std::vector<bool>& code, std::size_t open,
                           char close) {
  const char o = s[open];
  int depth = 0;
  for (std::size_t k = open; k < s.size(); ++k) {
    if (!code[k]) continue;
    if (s[k] == o) ++depth;
    if (s[k] == close && --depth == 0) return k;
  }
  return std::string_view::npos;
}

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// How the rewriter matches a name of a feature the emulator does not run: the whole word; any word
// that starts with it (a family of CUDA's own names, which a program cannot define); a driver API
// family (cuDevice...), whose prefix is no name of its own: called, and the prefix itself or
// followed by an upper-case letter, a digit or '_' (cuDeviceGet(, cuMemAlloc_v2(), so that a
// program's own `int cuDevice` or cuDevices stays its own; a complex BLAS family (cublasC...):
// the prefix and a BLAS routine's name (cublasCgemm, not a program's cublasCheck).
enum class Match : std::uint8_t { whole, prefix, driver_call, blas_routine };

class Rewriter {
 public:
  Rewriter(std::string_view s, const std::string& path)
      : s_(s), code_(code_mask(s)), path_(path), tag_(fmt::format("{:08x}", fnv1a(path) >> 32)) {
    find_kernel_templates();
  }

  Rewritten run() {
    Rewritten out;
    out.text = "#line 1 \"" + escape(path_) + "\"\n";
    std::size_t copied = 0;
    std::size_t i = 0;
    while (i < s_.size()) {
      if (!registrations_.empty() && registrations_.begin()->first <= i) {
        const auto [at_end, text] = *registrations_.begin();
        registrations_.erase(registrations_.begin());
        out.text.append(s_.substr(copied, at_end - copied));
        out.text += text;
        copied = at_end;
      }
      if (!code_[i]) {
        ++i;
        continue;
      }
      if (const std::size_t opener = chevrons_at(i, '<')) {
        if (auto launch = parse_launch(i, opener)) {
          out.text.append(s_.substr(copied, launch->callee_begin - copied));
          out.text += launch->replacement;
          copied = launch->end;
          i = launch->end;
          ++out.launches;
          continue;
        }
        i += 3;
        continue;
      }
      if (ident_char(s_[i]) && (i == 0 || !ident_char(s_[i - 1]))) {
        std::size_t e = i;
        while (e < s_.size() && ident_char(s_[e])) ++e;
        const std::string_view word = s_.substr(i, e - i);
        if (word == "extern") {
          if (const std::size_t at_semicolon = dynamic_shared_end(e); at_semicolon != 0) {
            if (const std::size_t name = array_name(at_semicolon);
                name != std::string_view::npos && in_block_scope(i)) {
              // In a function, g++ drops an asm label in a template (the samples' SharedMemory<T>):
              // the name becomes a reference to the block's buffer, typed by the declaration,
              // which now names a placeholder that is never used (decltype does not use it). The
              // window ends at a guard page (simt/guard.hpp), as for the arrays below.
              std::size_t name_end = name;
              while (name_end < s_.size() && ident_char(s_[name_end])) ++name_end;
              const std::string placeholder =
                  "gpulab_shared_decl_" + tag_ + "_" + std::to_string(registrations_made_++) + "_";
              out.text.append(s_.substr(copied, name - copied));
              out.text += placeholder;
              out.text.append(s_.substr(name_end, at_semicolon - name_end));
              out.text += "; decltype(" + placeholder + ")& " +
                          std::string(s_.substr(name, name_end - name)) +
                          " = reinterpret_cast<decltype(" + placeholder +
                          ")&>(*::gpulab::simt::detail::dynamic_shared_window())";
            } else if (const auto unsized = unsized_array_name(e, at_semicolon)) {
              // `T name[]` becomes `T (*name)`: the pointer to the block's window of dynamic
              // shared memory, which ends at a guard page (simt/guard.hpp).
              const auto [name_begin, name_end, close] = *unsized;
              out.text.append(s_.substr(copied, name_begin - copied));
              out.text += "(*";
              out.text.append(s_.substr(name_begin, name_end - name_begin));
              out.text += ")";
              out.text.append(s_.substr(close + 1, at_semicolon - close - 1));
              out.text += " __asm__(\"gpulab_simt_dynamic_shared_ptr\")";
            } else {
              out.text.append(s_.substr(copied, at_semicolon - copied));
              out.text += " __asm__(\"gpulab_simt_dynamic_shared\")";
            }
            copied = at_semicolon;
          }
        } else if (kernel_templates_.count(std::string(word)) != 0) {
          // A kernel template's instantiation named as a value ((void*)k<float>, &k<int>): it is
          // registered by address where it is named, as a kernel that is no template is where it
          // is defined, so that cudaLaunchKernel and cudaLaunchCooperativeKernel find it.
          if (const auto named = parse_template_value(i, e)) {
            out.text.append(s_.substr(copied, named->begin - copied));
            out.text += "::gpulab::rt::registered(";
            out.text.append(s_.substr(named->begin, named->end - named->begin));
            out.text += ", \"" + escape(std::string(word)) + "\")";
            copied = named->end;
            i = named->end;
            continue;
          }
        } else if (word == "__shared__" && at(skip_space(e), "alignas") &&
                   !ident_char(s_[std::min(skip_space(e) + 7, s_.size() - 1)])) {
          // `__shared__ alignas(16) float a[N];` (NVIDIA's globalToShmemAsyncCopy): __shared__
          // is `thread_local` to g++, after which no alignas may stand; alignas goes first.
          const std::size_t a = skip_space(e);
          const std::size_t open = skip_space(a + 7);
          const std::size_t close = open < s_.size() && s_[open] == '(' ? match_forward(open, ')')
                                                                        : std::string_view::npos;
          if (close != std::string_view::npos) {
            out.text.append(s_.substr(copied, i - copied));
            out.text.append(s_.substr(a, close + 1 - a));
            out.text += " __shared__";
            // Lines stay where they were.
            const std::string_view gap = s_.substr(e, a - e);
            out.text.append(static_cast<std::size_t>(std::count(gap.begin(), gap.end(), '\n')),
                            '\n');
            copied = close + 1;
            i = close + 1;
            continue;
          }
        } else if (word == "__global__") {
          note_kernel_definition(e);
        } else if ((word == "__device__" || word == "__constant__" || word == "__managed__") &&
                   !in_block_scope(i)) {
          if (auto name = variable_declared(e)) device_variables_.insert(std::move(*name));
        } else if ((word == "clock" || word == "clock64") && out.clock_line == 0 &&
                   skip_space(e) < s_.size() && s_[skip_space(e)] == '(') {
          out.clock_line = line_of(i);
          note_unsupported(word, i, out.unsupported);
        } else if (word == "asm" || word == "__asm__" || word == "__asm") {
          // A read of a special register the samples use (%smid, %laneid, ...) becomes a call
          // into the emulator; any other inline PTX is refused.
          if (auto read = parse_register_read(e)) {
            if (out.clock_line == 0 &&
                (read->replacement.find("clock64") != std::string::npos ||
                 read->replacement.find("globaltimer") != std::string::npos)) {
              out.clock_line = line_of(i);
            }
            out.text.append(s_.substr(copied, i - copied));
            out.text += read->replacement;
            copied = read->end;
            i = read->end;
            continue;
          }
          note_unsupported(word, i, out.unsupported);
        } else {
          note_unsupported(word, i, out.unsupported);
        }
        i = e;
        continue;
      }
      ++i;
    }
    for (const auto& [at_end, text] : registrations_) {
      out.text.append(s_.substr(copied, at_end - copied));
      out.text += text;
      copied = at_end;
    }
    out.text.append(s_.substr(copied));
    if (!device_variables_.empty()) {
      // After the last line: the runtime learns which of the program's variables are device
      // memory (cudaGetSymbolAddress's address given to cudaMemcpy), by name.
      std::string names;
      for (const std::string& n : device_variables_) names += n + "\\n";
      out.text +=
          "\n#ifdef GPULAB_RT_CUDA_SOURCE\n[[maybe_unused]] static const bool "
          "gpulab_device_variables_" +
          tag_ + "_ = ::gpulab::rt::register_device_variables(\"" + names + "\");\n#endif\n";
    }
    return out;
  }

 private:
  // The name a declaration that starts at `from` (after __device__, __constant__ or __managed__
  // at namespace scope) gives a variable: the word before its first `;`, `=`, `[` or `,`; nothing
  // when a `(` or `{` comes first (a function).
  std::optional<std::string> variable_declared(std::size_t from) const {
    for (std::size_t k = from; k < s_.size(); ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(' || c == '{' || c == '}' || c == '#') return std::nullopt;
      if (c == ';' || c == '=' || c == '[' || c == ',') {
        std::size_t end = k;
        while (end > from && std::isspace(static_cast<unsigned char>(s_[end - 1]))) --end;
        std::size_t begin = end;
        while (begin > from && ident_char(s_[begin - 1])) --begin;
        if (begin == end || std::isdigit(static_cast<unsigned char>(s_[begin]))) {
          return std::nullopt;
        }
        return std::string(s_.substr(begin, end - begin));
      }
    }
    return std::nullopt;
  }

  struct Launch {
    std::size_t callee_begin = 0, end = 0;
    std::string replacement;
  };

  bool at(std::size_t i, std::string_view what) const {
    return s_.compare(i, what.size(), what) == 0;
  }

  // The length of a launch's `<<<` (c '<') or `>>>` (c '>') at i, 0 if there is none. nvcc also
  // takes `<< <` and `>> >`, as Visual Studio's formatter writes them: two, blanks, one.
  std::size_t chevrons_at(std::size_t i, char c) const {
    if (i + 1 >= s_.size() || s_[i] != c || s_[i + 1] != c) return 0;
    std::size_t j = i + 2;
    while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
    return j < s_.size() && s_[j] == c ? j + 1 - i : 0;
  }

  // The line a compiler gives pos: after the last `#line N` before it (split_kernels writes them
  // around code it moves or copies), else counted from the top.
  int line_of(std::size_t pos) const {
    pos = std::min(pos, s_.size());
    int line = 1;
    std::size_t from = 0;
    const std::string_view before = std::string_view(s_).substr(0, pos);
    const std::size_t d = before.rfind("\n#line ");
    if (d != std::string_view::npos && before.find('\n', d + 1) != std::string_view::npos) {
      line = std::atoi(std::string(s_.substr(d + 7, 12)).c_str());
      from = before.find('\n', d + 1) + 1;
    }
    for (std::size_t k = from; k < pos; ++k) line += s_[k] == '\n';
    return line;
  }

  std::size_t skip_space_back(std::size_t i) const {  // i: one past; returns one past non-space
    while (i > 0 && (std::isspace(static_cast<unsigned char>(s_[i - 1])) || !code_[i - 1])) --i;
    return i;
  }
  std::size_t skip_space(std::size_t i) const {
    while (i < s_.size() && (std::isspace(static_cast<unsigned char>(s_[i])) || !code_[i])) ++i;
    return i;
  }

  // Position of the bracket that opens the one closing at s_[close] (scanning back), or npos.
  std::size_t match_back(std::size_t close) const {
    const char c = s_[close];
    const char open = c == ')' ? '(' : c == ']' ? '[' : '<';
    int depth = 0;
    for (std::size_t k = close + 1; k-- > 0;) {
      if (!code_[k]) continue;
      if (s_[k] == c) ++depth;
      if (s_[k] == open && --depth == 0) return k;
      if (open == '<' && (s_[k] == ';' || s_[k] == '{' || s_[k] == '}')) break;
    }
    return std::string_view::npos;
  }

  // The expression that names the kernel, ending just before `end`: a (qualified) name with
  // template arguments, a member access, or a parenthesised expression.
  std::size_t callee_begin(std::size_t end) const {
    std::size_t i = skip_space_back(end);
    bool want_operand = true;
    while (i > 0) {
      const char c = s_[i - 1];
      if (want_operand) {
        if (c == '>' || c == ')' || c == ']') {
          const std::size_t open = match_back(i - 1);
          if (open == std::string_view::npos) return i;
          i = skip_space_back(open);
          // Template arguments or a subscript are followed back by a name; parentheses may stand
          // alone.
          if (c == ')' && (i == 0 || !ident_char(s_[i - 1]))) return open;
          continue;
        }
        if (!ident_char(c)) return i;
        while (i > 0 && ident_char(s_[i - 1])) --i;
        want_operand = false;
        continue;
      }
      const std::size_t before = skip_space_back(i);
      if (before >= 2 &&
          (s_.compare(before - 2, 2, "::") == 0 || s_.compare(before - 2, 2, "->") == 0)) {
        i = skip_space_back(before - 2);
        want_operand = true;
      } else if (before >= 1 && s_[before - 1] == '.' &&
                 !(before >= 2 && std::isdigit(static_cast<unsigned char>(s_[before - 2])))) {
        i = skip_space_back(before - 1);
        want_operand = true;
      } else {
        return i;
      }
    }
    return i;
  }

  std::size_t match_forward(std::size_t open, char close_char) const {
    return matching_close(s_, code_, open, close_char);
  }

  // The names of the kernels defined or declared as templates (`template <...> __global__ void
  // k(`).
  // After `__global__`: the kernel's name and the position of its parameter list's `(`, skipping
  // words such as `void` and attributes such as `__launch_bounds__(...)`.
  std::optional<std::pair<std::string_view, std::size_t>> kernel_declarator(
      std::size_t after_word) const {
    std::size_t k = skip_space(after_word);
    while (k < s_.size() && ident_char(s_[k])) {
      std::size_t e = k;
      while (e < s_.size() && ident_char(s_[e])) ++e;
      const std::string_view word = s_.substr(k, e - k);
      const std::size_t next = skip_space(e);
      if (next < s_.size() && s_[next] == '(') {
        if (!word.starts_with("__")) return std::make_pair(word, next);
        // __launch_bounds__(...) and the like.
        const std::size_t close = match_forward(next, ')');
        if (close == std::string_view::npos) return std::nullopt;
        k = skip_space(close + 1);
        continue;
      }
      k = next;
    }
    return std::nullopt;
  }

  void find_kernel_templates() {
    for (std::size_t at = s_.find("__global__"); at != std::string_view::npos;
         at = s_.find("__global__", at + 10)) {
      if (!code_[at]) continue;
      std::size_t start = at;
      while (start > 0 && s_[start - 1] != ';' && s_[start - 1] != '}' && s_[start - 1] != '{') {
        --start;
      }
      const std::string_view head = s_.substr(start, at - start);
      const std::size_t t = head.find("template");
      if (t == std::string_view::npos || head.find('<', t) == std::string_view::npos) continue;
      if (const auto kernel = kernel_declarator(at + 10)) {
        kernel_templates_.insert(std::string(kernel->first));
      }
    }
  }

  // `name<args>` (with a unary & before it) where it stands for a function's address: not called
  // and not launched.
  struct Span {
    std::size_t begin = 0, end = 0;
  };
  std::optional<Span> parse_template_value(std::size_t name_begin, std::size_t name_end) const {
    std::size_t open = skip_space(name_end);
    if (open >= s_.size() || s_[open] != '<' || chevrons_at(open, '<') != 0) return std::nullopt;
    int angle = 0, paren = 0;
    std::size_t k = open;
    for (; k < s_.size(); ++k) {
      const char c = s_[k];
      if (c == ';' || c == '{' || c == '}') return std::nullopt;
      if (c == '(') ++paren;
      if (c == ')') --paren;
      if (paren > 0) continue;
      if (c == '<') ++angle;
      if (c == '>' && --angle == 0) break;
    }
    if (k >= s_.size()) return std::nullopt;
    const std::size_t end = k + 1;
    const std::size_t after = skip_space(end);
    if (after < s_.size() && (s_[after] == '(' || chevrons_at(after, '<') != 0)) {
      return std::nullopt;  // a call, a launch or a declaration
    }
    Span span{name_begin, end};
    const std::size_t before = skip_space_back(name_begin);
    if (before > 0 && s_[before - 1] == '&' && (before < 2 || s_[before - 2] != '&')) {
      span.begin = before - 1;
    }
    return span;
  }

  // After `__global__`: when it begins a kernel's definition, the kernel's registration goes right
  // after the definition's closing brace (on the same line).
  void note_kernel_definition(std::size_t after_word) {
    std::size_t line_start = after_word;
    while (line_start > 0 && s_[line_start - 1] != '\n') --line_start;
    if (s_[skip_space_line(line_start)] == '#') return;  // a macro
    const auto kernel = kernel_declarator(after_word);
    if (!kernel) return;
    const auto [name, k] = *kernel;
    const std::size_t close = match_forward(k, ')');
    if (close == std::string_view::npos) return;
    const std::size_t body = skip_space(close + 1);
    if (body >= s_.size() || s_[body] != '{') return;  // a declaration
    const std::size_t end = match_forward(body, '}');
    if (end == std::string_view::npos) return;
    const std::string n(name);
    registrations_[end + 1] =
        " [[maybe_unused]] static const bool gpulab_kernel_registered_" + tag_ + "_" +
        std::to_string(registrations_made_++) +
        "_ = [](auto gpulab_tag_) { if constexpr (requires { "
        "::gpulab::rt::kernel_address<decltype(gpulab_tag_)>(" +
        n + "); }) return ::gpulab::rt::register_kernel(::gpulab::rt::kernel_address<decltype(" +
        "gpulab_tag_)>(" + n + "), \"" + escape(n) + "\"); else return false; }(0);";
  }

  std::optional<Launch> parse_launch(std::size_t chevrons, std::size_t opener) const {
    // The configuration ends at the first `>>>` outside brackets.
    std::size_t k = chevrons + opener;
    std::size_t closer = 0;
    int depth = 0;
    std::size_t config_end = std::string_view::npos;
    for (; k < s_.size(); ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0 || c == ';') return std::nullopt;
      if (depth == 0 && (closer = chevrons_at(k, '>')) != 0) {
        config_end = k;
        break;
      }
    }
    if (config_end == std::string_view::npos) return std::nullopt;
    const std::size_t paren = skip_space(config_end + closer);
    if (paren >= s_.size() || s_[paren] != '(') return std::nullopt;
    const std::size_t close = match_forward(paren, ')');
    if (close == std::string_view::npos) return std::nullopt;
    const std::size_t begin = callee_begin(chevrons);
    if (begin >= chevrons) return std::nullopt;

    std::string callee(s_.substr(begin, skip_space_back(chevrons) - begin));
    int dropped_newlines = 0;
    for (char& ch : callee) {
      if (ch == '\n') {
        ch = ' ';
        ++dropped_newlines;
      }
    }
    for (std::size_t p = skip_space_back(chevrons); p < chevrons; ++p)
      dropped_newlines += s_[p] == '\n';
    for (std::size_t p = config_end + closer; p < paren; ++p) dropped_newlines += s_[p] == '\n';
    const std::string_view config = s_.substr(chevrons + opener, config_end - chevrons - opener);
    const std::string_view args = s_.substr(paren + 1, close - paren - 1);
    const bool no_args = skip_space(paren + 1) == close;

    Launch launch;
    launch.callee_begin = begin;
    launch.end = close + 1;
    std::string& r = launch.replacement;
    r = "::gpulab::rt::launch(::gpulab::rt::LaunchSite{\"" + escape(callee) + "\", __FILE__, " +
        std::to_string(line_of(begin)) + "}, ";
    r += "[=](auto gpulab_tag_) { if constexpr (requires { "
         "::gpulab::rt::kernel_address<decltype(gpulab_tag_)>(" +
         callee +
         "); }) return "
         "::gpulab::rt::kernel_address<decltype(gpulab_tag_)>(" +
         callee + "); else return nullptr; }(0), ";
    r += "[=](auto&... gpulab_args_) GPULAB_RT_LAUNCH_CODE { " + callee + "(gpulab_args_...); }, ";
    r += "::gpulab::rt::config(";
    r.append(config);
    r += "))(";
    if (no_args) {
      for (char ch : args) dropped_newlines += ch == '\n';
    } else {
      r.append(args);
    }
    r += ")";
    r.append(static_cast<std::size_t>(dropped_newlines), '\n');
    return launch;
  }

  // After `asm` (at `after_word`): `asm [volatile] ("mov.u32 %0, %%smid;" : "=r"(x))` and the like,
  // a read of one of the special registers gpulab gives values for, as `(x) = value`.
  std::optional<Launch> parse_register_read(std::size_t after_word) const {
    std::size_t k = skip_space(after_word);
    for (std::string_view q : {"volatile", "__volatile__"}) {
      if (at(k, q) && !ident_char(s_[k + q.size()])) k = skip_space(k + q.size());
    }
    if (k >= s_.size() || s_[k] != '(') return std::nullopt;
    const std::size_t open = k;
    const std::size_t close = match_forward(open, ')');
    if (close == std::string_view::npos) return std::nullopt;
    // The template: one or more string literals (skip_space would skip them: they are no code).
    const auto blank = [&](std::size_t at_k) {
      while (at_k < close && std::isspace(static_cast<unsigned char>(s_[at_k]))) ++at_k;
      return at_k;
    };
    const auto literal = [&](std::size_t& at_k, std::string& text) {
      at_k = blank(at_k);
      bool any = false;
      while (at_k < close && s_[at_k] == '"') {
        std::size_t e = at_k + 1;
        while (e < close && s_[e] != '"') e += s_[e] == '\\' ? 2 : 1;
        if (e >= close) return false;
        text.append(s_.substr(at_k + 1, e - at_k - 1));
        at_k = blank(e + 1);
        any = true;
      }
      return any;
    };
    std::string templ, constraint;
    k = open + 1;
    if (!literal(k, templ) || k >= close || s_[k] != ':') return std::nullopt;
    ++k;
    if (!literal(k, constraint) || k >= close || s_[k] != '(') return std::nullopt;
    const std::size_t expr_close = match_forward(k, ')');
    if (expr_close == std::string_view::npos || skip_space(expr_close + 1) != close) {
      return std::nullopt;  // inputs or clobbers: not a plain read
    }
    const std::string_view expr = s_.substr(k + 1, expr_close - k - 1);
    if (constraint != "=r" && constraint != "=l" && constraint != "=h") return std::nullopt;
    std::string t;
    for (char c : templ) {
      if (c != ' ' && c != '\t') t += c;
    }
    if (!t.starts_with("mov.")) return std::nullopt;
    const std::size_t comma = t.find("%0,");
    if (comma == std::string::npos) return std::nullopt;
    std::string reg = t.substr(comma + 3);
    while (!reg.empty() && reg.front() == '%') reg.erase(0, 1);
    while (!reg.empty() && reg.back() == ';') reg.pop_back();
    static const std::map<std::string, std::string, std::less<>> kRegisters = {
        {"smid", "::gpulab_rt_ptx_smid()"},
        {"nsmid", "::gpulab_rt_ptx_nsmid()"},
        {"warpid", "::gpulab::rt::ptx_warpid()"},
        {"nwarpid", "64u"},
        {"laneid", "::gpulab::rt::ptx_laneid()"},
        {"lanemask_eq", "::gpulab::rt::ptx_lanemask_eq()"},
        {"lanemask_lt", "::gpulab::rt::ptx_lanemask_lt()"},
        {"lanemask_le", "::gpulab::rt::ptx_lanemask_le()"},
        {"lanemask_gt", "::gpulab::rt::ptx_lanemask_gt()"},
        {"lanemask_ge", "::gpulab::rt::ptx_lanemask_ge()"},
        {"clock", "static_cast<unsigned>(::clock64())"},
        {"clock64", "static_cast<unsigned long long>(::clock64())"},
        {"globaltimer", "::gpulab_rt_ptx_globaltimer()"},
    };
    const auto it = kRegisters.find(reg);
    if (it == kRegisters.end()) return std::nullopt;
    Launch read;
    read.end = close + 1;
    read.replacement = "((" + std::string(expr) + ") = " + it->second + ")";
    for (std::size_t p = after_word; p < close; ++p) {
      if (s_[p] == '\n') read.replacement += '\n';
    }
    return read;
  }

  // In `extern __shared__ T name[]...;` (from after `extern` to the `;`): where `name` begins and
  // ends and where the `]` of its first, empty, pair of brackets is.
  std::optional<std::array<std::size_t, 3>> unsized_array_name(std::size_t from,
                                                               std::size_t semicolon) const {
    int depth = 0;
    for (std::size_t k = from; k < semicolon; ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c != '[' || depth != 0) continue;
      const std::size_t close = skip_space(k + 1);
      if (close >= semicolon || s_[close] != ']') return std::nullopt;
      const std::size_t name_end = skip_space_back(k);
      std::size_t name_begin = name_end;
      while (name_begin > from && ident_char(s_[name_begin - 1])) --name_begin;
      if (name_begin == name_end) return std::nullopt;
      return std::array<std::size_t, 3>{name_begin, name_end, close};
    }
    return std::nullopt;
  }

  // For `extern` at `after_word`: when it declares `extern __shared__ T name[]` (the qualifiers in
  // any order: `extern T __shared__ name[]` too, as NVIDIA's samples write it), the position of
  // the `;` that ends it (where the binding goes); 0 otherwise.
  std::size_t dynamic_shared_end(std::size_t after_word) const {
    bool shared = false;
    int depth = 0;
    for (std::size_t k = after_word; k < s_.size(); ++k) {
      if (!code_[k]) continue;
      const char c = s_[k];
      if (depth == 0 && c == '_' && !ident_char(s_[k - 1]) && at(k, "__shared__") &&
          (k + 10 >= s_.size() || !ident_char(s_[k + 10]))) {
        shared = true;
      }
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') --depth;
      if (c == '{' || c == '}' || c == '=') return 0;
      if (c == ';' && depth == 0) {
        const std::size_t last = skip_space_back(k);
        return shared && last > 0 && s_[last - 1] == ']' ? k : 0;
      }
    }
    return 0;
  }

  // The start of the array's name in `extern __shared__ T name[];` (`semicolon` ends it), or npos.
  std::size_t array_name(std::size_t semicolon) const {
    std::size_t k = skip_space_back(semicolon);
    if (k == 0 || s_[k - 1] != ']') return std::string_view::npos;
    const std::size_t open = match_back(k - 1);
    if (open == std::string_view::npos) return std::string_view::npos;
    std::size_t end = skip_space_back(open);
    std::size_t begin = end;
    while (begin > 0 && ident_char(s_[begin - 1])) --begin;
    return begin < end ? begin : std::string_view::npos;
  }

  // Whether `pos` is inside a function (or any braces but a namespace's and extern "C"'s).
  bool in_block_scope(std::size_t pos) const {
    std::vector<bool> blocks;  // per open brace: a block (not a namespace)
    for (std::size_t k = 0; k < pos; ++k) {
      if (!code_[k]) continue;
      if (s_[k] == '{') {
        blocks.push_back(!opens_namespace(k));
      } else if (s_[k] == '}' && !blocks.empty()) {
        blocks.pop_back();
      }
    }
    return std::find(blocks.begin(), blocks.end(), true) != blocks.end();
  }

  // The brace at `brace` opens `namespace [a::b] {`, `inline namespace x {` or `extern "C" {`.
  bool opens_namespace(std::size_t brace) const {
    std::size_t k = brace;
    while (k > 0 && std::isspace(static_cast<unsigned char>(s_[k - 1]))) --k;
    if (k > 0 && s_[k - 1] == '"') return true;  // extern "C" (the literal is no code)
    // Back over a (qualified) name, then the word before it.
    while (k > 0 && (ident_char(s_[k - 1]) || s_[k - 1] == ':' ||
                     std::isspace(static_cast<unsigned char>(s_[k - 1])))) {
      std::size_t e = k;
      while (k > 0 && ident_char(s_[k - 1])) --k;
      if (s_.substr(k, e - k) == "namespace") return true;
      if (k == e) --k;  // a ':' or a space
    }
    return false;
  }

  void note_unsupported(std::string_view word, std::size_t pos,
                        std::vector<Unsupported>& out) const {
    // What each refused feature is called, in English and Chinese.
    struct FeatureName {
      std::string_view en, zh;
    };
    static constexpr FeatureName kTextures{"textures and surfaces", "纹理和表面"};
    static constexpr FeatureName kAsm{"inline PTX assembly (asm)", "内联 PTX 汇编（asm）"};
    static constexpr FeatureName kGraphics{"graphics interop (OpenGL, Direct3D, EGL)",
                                           "图形互操作（OpenGL、Direct3D、EGL）"};
    static constexpr FeatureName kWmma{"tensor cores (wmma)", "张量核心（wmma）"};
    static constexpr FeatureName kClusters{"thread block clusters", "线程块簇"};
    static constexpr FeatureName kMultiDeviceCoop{"cooperative launches on several GPUs",
                                                  "多 GPU 的协作启动"};
    static constexpr FeatureName kDriverApi{"the CUDA driver API (cu*)", "CUDA 驱动 API（cu*）"};
    static constexpr FeatureName kNvrtc{"NVRTC (compiling CUDA at run time)",
                                        "NVRTC（运行时编译 CUDA）"};
    static constexpr FeatureName kIpc{"memory shared between processes (CUDA IPC)",
                                      "进程间共享的显存（CUDA IPC）"};
    static constexpr FeatureName kMrg32k3a{
        "cuRAND's MRG32k3a generator (XORWOW and Philox4_32_10 run)",
        "cuRAND 的 MRG32k3a 生成器（XORWOW 和 Philox4_32_10 可以运行）"};
    static constexpr FeatureName kMtgp32{
        "cuRAND's MTGP32 generator (XORWOW and Philox4_32_10 run)",
        "cuRAND 的 MTGP32 生成器（XORWOW 和 Philox4_32_10 可以运行）"};
    static constexpr FeatureName kMt19937{
        "cuRAND's MT19937 generator (XORWOW and Philox4_32_10 run)",
        "cuRAND 的 MT19937 生成器（XORWOW 和 Philox4_32_10 可以运行）"};
    static constexpr FeatureName kQuasiRandom{
        "cuRAND's quasi-random generators (XORWOW and Philox4_32_10 run)",
        "cuRAND 的准随机生成器（XORWOW 和 Philox4_32_10 可以运行）"};
    static constexpr FeatureName kDiscrete{"cuRAND's discrete distributions", "cuRAND 的离散分布"};
    static constexpr FeatureName kComplexBlas{
        "complex-valued cuBLAS routines (the real S and D ones run)",
        "复数的 cuBLAS 例程（实数的 S 和 D 例程可以运行）"};
    static constexpr FeatureName kCublasLt{"cuBLASLt", "cuBLASLt"};
    static constexpr FeatureName kCub{"CUB (CUDA-only; thrust runs on the emulator)",
                                      "CUB（仅限 CUDA；thrust 可以在模拟器上运行）"};
    static constexpr FeatureName kCufft{"cuFFT", "cuFFT"};
    static constexpr FeatureName kCusparse{"cuSPARSE", "cuSPARSE"};
    static constexpr FeatureName kCusolver{"cuSOLVER", "cuSOLVER"};
    struct Feature {
      std::string_view prefix;
      Match match;
      FeatureName name;
    };
    using enum Match;
    static constexpr std::array<Feature, 51> kFeatures{{
        {"texture", whole, kTextures},
        {"tex1D", prefix, kTextures},
        {"tex2D", prefix, kTextures},
        {"tex3D", prefix, kTextures},
        {"cudaCreateTextureObject", whole, kTextures},
        {"cudaBindTexture", prefix, kTextures},
        {"surf1Dwrite", prefix, kTextures},
        {"surf2Dwrite", prefix, kTextures},
        {"cudaCreateSurfaceObject", whole, kTextures},
        {"asm", whole, kAsm},
        {"__asm__", whole, kAsm},
        {"cudaGraphics", prefix, kGraphics},
        {"wmma", whole, kWmma},
        {"__cluster_dims__", whole, kClusters},
        {"cudaLaunchCooperativeKernelMultiDevice", whole, kMultiDeviceCoop},
        // What stays refused on the emulator, named before anything runs.
        {"cudaGLSetGLDevice", whole, kGraphics},
        {"cudaGLRegisterBufferObject", whole, kGraphics},
        {"cudaEGL", prefix, kGraphics},
        {"cudaD3D", prefix, kGraphics},
        {"cuInit", whole, kDriverApi},
        {"cuDevice", driver_call, kDriverApi},
        {"cuCtx", driver_call, kDriverApi},
        {"cuModule", driver_call, kDriverApi},
        {"cuLaunchKernel", whole, kDriverApi},
        {"cuMemAlloc", driver_call, kDriverApi},
        {"cuMemcpy", driver_call, kDriverApi},
        {"cuLink", driver_call, kDriverApi},
        {"cuDriverGetVersion", whole, kDriverApi},
        {"cuGetErrorString", whole, kDriverApi},
        {"nvrtc", prefix, kNvrtc},
        {"cudaIpc", prefix, kIpc},
        {"curandStateMRG32k3a", prefix, kMrg32k3a},
        {"CURAND_RNG_PSEUDO_MRG32K3A", whole, kMrg32k3a},
        {"curandStateMtgp32", prefix, kMtgp32},
        {"CURAND_RNG_PSEUDO_MTGP32", whole, kMtgp32},
        {"CURAND_RNG_PSEUDO_MT19937", whole, kMt19937},
        {"curandStateSobol", prefix, kQuasiRandom},
        {"curandStateScrambledSobol", prefix, kQuasiRandom},
        {"CURAND_RNG_QUASI", prefix, kQuasiRandom},
        {"curand_poisson", prefix, kDiscrete},
        {"curandCreatePoissonDistribution", whole, kDiscrete},
        {"cublasC", blas_routine, kComplexBlas},
        {"cublasZ", blas_routine, kComplexBlas},
        {"cublasLt", prefix, kCublasLt},
        {"cub", whole, kCub},
        {"cufft", prefix, kCufft},
        {"cusparse", prefix, kCusparse},
        {"cusolver", prefix, kCusolver},
    }};
    for (const Feature& f : kFeatures) {
      if (!matches(f.match, f.prefix, word, pos)) continue;
      // `asm` inside a line that is a preprocessor directive (#include <asm/...>) is no code.
      std::size_t line_start = pos;
      while (line_start > 0 && s_[line_start - 1] != '\n') --line_start;
      if (s_[skip_space_line(line_start)] == '#') return;
      out.push_back(
          {line_of(pos), std::string(f.name.en), std::string(f.name.zh), std::string(word)});
      return;
    }
  }

  bool matches(Match how, std::string_view prefix, std::string_view word, std::size_t pos) const {
    if (!word.starts_with(prefix)) return false;
    const std::string_view rest = word.substr(prefix.size());
    switch (how) {
      case Match::whole:
        return rest.empty();
      case Match::prefix:
        return true;
      case Match::driver_call: {
        const unsigned char next = rest.empty() ? 0 : static_cast<unsigned char>(rest[0]);
        if (next != 0 && !std::isupper(next) && !std::isdigit(next) && next != '_') return false;
        const std::size_t after = skip_space(pos + word.size());
        return after < s_.size() && s_[after] == '(';
      }
      case Match::blas_routine: {  // cuBLAS's complex routines after cublasC/cublasZ
        static constexpr std::array<std::string_view, 32> kRoutines{
            "axpy", "copy",  "dgmm",   "dot",  "gbmv", "geam", "gels",  "gemm",
            "gemv", "geqrf", "ger",    "getr", "hbmv", "hemm", "hemv",  "her",
            "hpmv", "hpr",   "matinv", "rot",  "scal", "srot", "sscal", "swap",
            "symm", "symv",  "syr",    "tbmv", "tbsv", "tpmv", "tpsv",  "tr"};
        return std::any_of(kRoutines.begin(), kRoutines.end(),
                           [&](std::string_view r) { return rest.starts_with(r); });
      }
    }
    return false;
  }

  std::size_t skip_space_line(std::size_t i) const {
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t')) ++i;
    return i;
  }

  static std::string escape(std::string_view text) {
    std::string out;
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  }

  std::string_view s_;
  std::vector<bool> code_;
  std::string path_;
  std::string tag_;  // from the path: a header's registrations never clash with its includer's
  std::map<std::size_t, std::string> registrations_;  // position -> a kernel's registration
  std::set<std::string> kernel_templates_;
  std::set<std::string> device_variables_;  // __device__/__constant__/__managed__ variables
  int registrations_made_ = 0;
};

}  // namespace

Rewritten rewrite_for_emulator(std::string_view source, const std::string& path) {
  return Rewriter(source, path).run();
}

std::vector<Include> includes_of(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  std::vector<Include> out;
  int line = 1;
  for (std::size_t start = 0; start < s.size(); ++line) {
    std::size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::size_t k = start;
    const auto blank = [&] {
      while (k < end && (s[k] == ' ' || s[k] == '\t')) ++k;
    };
    blank();
    if (k < end && s[k] == '#' && code[k]) {
      ++k;
      blank();
      if (s.compare(k, 7, "include") == 0 && k + 7 < end && !ident_char(s[k + 7])) {
        k += 7;
        blank();
        if (k < end && (s[k] == '"' || s[k] == '<')) {
          const char close = s[k] == '"' ? '"' : '>';
          const std::size_t e = s.find(close, k + 1);
          if (e != std::string_view::npos && e < end && e > k + 1) {
            out.push_back({line, std::string(s.substr(k + 1, e - k - 1)), close == '"'});
          }
        }
      }
    }
    start = end + 1;
  }
  return out;
}

}  // namespace gpulab::run
