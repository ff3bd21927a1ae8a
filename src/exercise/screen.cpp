// The screen of a student's exercise file (see screen.hpp). Lexical, on the file as written (lines
// joined where a backslash ends them, as the compiler joins them): a whitelist of what may stand
// at namespace scope, a short list of preprocessor uses, and names that reach the process.
#include "exercise/screen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace gpulab::exercise {

namespace {

struct Token {
  enum Kind { ident, number, punct, literal, directive } kind;
  std::string text;
  int line;
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The file as the compiler sees it after joining lines, with each character's line.
struct Spliced {
  std::string s;
  std::vector<int> line;
};
Spliced splice(const std::string& text) {
  Spliced out;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() &&
        (text[i + 1] == '\n' ||
         (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n'))) {
      i += text[i + 1] == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    out.s += text[i];
    out.line.push_back(line);
    if (text[i] == '\n') ++line;
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(const Spliced& sp) : s_(sp.s), line_(sp.line) {}

  std::vector<Token> run(std::vector<Refusal>& refusals) {
    std::vector<Token> out;
    bool line_start = true;
    std::size_t i = 0;
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == '\n') {
        line_start = true;
        ++i;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      if (c == '/' && at(i + 1) == '/') {
        while (i < s_.size() && s_[i] != '\n') ++i;
        continue;
      }
      if (c == '/' && at(i + 1) == '*') {
        const std::size_t e = s_.find("*/", i + 2);
        i = e == std::string::npos ? s_.size() : e + 2;
        continue;
      }
      const int line = line_of(i);
      if (line_start && (c == '#' || (c == '%' && at(i + 1) == ':'))) {
        std::size_t e = i;
        while (e < s_.size() && s_[e] != '\n') ++e;
        std::string d = s_.substr(i, e - i);
        // Comments at the end of a directive are not part of it.
        if (const auto k = d.find("//"); k != std::string::npos) d.resize(k);
        out.push_back({Token::directive, d, line});
        i = e;
        continue;
      }
      line_start = false;
      if (c == '?' && at(i + 1) == '?') {
        refusals.push_back({line,
                            "trigraph",
                            {fmt::format("line {}: trigraphs (?\?) are not allowed in an exercise "
                                         "file",
                                         line),
                             fmt::format("第 {} 行：练习文件中不允许使用三字符组（??）", line)}});
      }
      if (ident_start(c) || (c == '\\' && (at(i + 1) == 'u' || at(i + 1) == 'U'))) {
        std::size_t e = i;
        bool ucn = false;
        while (e < s_.size() && (ident_char(s_[e]) || s_[e] == '\\')) {
          if (s_[e] == '\\') ucn = true;
          ++e;
        }
        std::string word = s_.substr(i, e - i);
        // A string literal's prefix (u8"...", L'x', R"(...)").
        if (e < s_.size() && (s_[e] == '"' || s_[e] == '\'') &&
            (word == "u8" || word == "u" || word == "U" || word == "L" || word == "R" ||
             word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
          i = literal(e, word.back() == 'R');
          out.push_back({Token::literal, "", line});
          continue;
        }
        if (ucn) {
          refusals.push_back(
              {line,
               "universal_character",
               {fmt::format("line {}: \\u in a name is not allowed in an exercise file", line),
                fmt::format("第 {} 行：练习文件的名字中不允许使用 \\u", line)}});
        }
        out.push_back({Token::ident, std::move(word), line});
        i = e;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
        std::size_t e = i + 1;
        while (e < s_.size() &&
               (ident_char(s_[e]) || s_[e] == '.' || s_[e] == '\'' ||
                ((s_[e] == '+' || s_[e] == '-') &&
                 (s_[e - 1] == 'e' || s_[e - 1] == 'E' || s_[e - 1] == 'p' || s_[e - 1] == 'P')))) {
          ++e;
        }
        out.push_back({Token::number, s_.substr(i, e - i), line});
        i = e;
        continue;
      }
      if (c == '"' || c == '\'') {
        i = literal(i, false);
        out.push_back({Token::literal, "", line});
        continue;
      }
      // Punctuation, with the two-character forms the screen looks at.
      std::string p(1, c);
      const char n = at(i + 1);
      if ((c == ':' && n == ':') || (c == '[' && n == '[') || (c == '#' && n == '#') ||
          (c == '%' && n == ':') || (c == '<' && (n == '%' || n == ':')) ||
          (c == '%' && n == '>') || (c == ':' && n == '>')) {
        p += n;
      }
      out.push_back({Token::punct, p, line});
      i += p.size();
    }
    return out;
  }

 private:
  char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  int line_of(std::size_t i) const {
    return line_.empty() ? 1 : line_[std::min(i, line_.size() - 1)];
  }
  // The end of the literal that opens at `i` (a quote).
  std::size_t literal(std::size_t i, bool raw) const {
    const char q = s_[i];
    if (raw && q == '"') {
      const std::size_t open = s_.find('(', i + 1);
      if (open == std::string::npos) return s_.size();
      const std::string close = ")" + s_.substr(i + 1, open - i - 1) + "\"";
      const std::size_t e = s_.find(close, open);
      return e == std::string::npos ? s_.size() : e + close.size();
    }
    std::size_t e = i + 1;
    while (e < s_.size() && s_[e] != q && s_[e] != '\n') {
      if (s_[e] == '\\') ++e;
      ++e;
    }
    return e + 1;
  }
  const std::string& s_;
  const std::vector<int>& line_;
};

// Names that reach the process, its files, its environment, the way it ends, or gpulab's own
// machinery; none is needed by device code.
const std::set<std::string>& forbidden_names() {
  static const std::set<std::string> names = {"main",
                                              "atexit",
                                              "at_quick_exit",
                                              "on_exit",
                                              "exit",
                                              "_exit",
                                              "_Exit",
                                              "quick_exit",
                                              "abort",
                                              "terminate",
                                              "set_terminate",
                                              "getenv",
                                              "secure_getenv",
                                              "setenv",
                                              "putenv",
                                              "unsetenv",
                                              "clearenv",
                                              "environ",
                                              "__environ",
                                              "program_invocation_name",
                                              "program_invocation_short_name",
                                              "__progname",
                                              "system",
                                              "popen",
                                              "fork",
                                              "vfork",
                                              "clone",
                                              "execl",
                                              "execle",
                                              "execlp",
                                              "execv",
                                              "execve",
                                              "execvp",
                                              "execvpe",
                                              "fexecve",
                                              "posix_spawn",
                                              "posix_spawnp",
                                              "kill",
                                              "raise",
                                              "signal",
                                              "sigaction",
                                              "syscall",
                                              "open",
                                              "openat",
                                              "open64",
                                              "creat",
                                              "fopen",
                                              "fopen64",
                                              "freopen",
                                              "fdopen",
                                              "tmpfile",
                                              "write",
                                              "pwrite",
                                              "writev",
                                              "read",
                                              "pread",
                                              "fread",
                                              "fwrite",
                                              "fputs",
                                              "fputc",
                                              "putc",
                                              "puts",
                                              "fprintf",
                                              "vfprintf",
                                              "dprintf",
                                              "fflush",
                                              "fclose",
                                              "stdout",
                                              "stderr",
                                              "stdin",
                                              "dup",
                                              "dup2",
                                              "dup3",
                                              "close",
                                              "unlink",
                                              "rename",
                                              "remove",
                                              "truncate",
                                              "ftruncate",
                                              "mmap",
                                              "munmap",
                                              "mprotect",
                                              "dlopen",
                                              "dlsym",
                                              "dlvsym",
                                              "ptrace",
                                              "prctl",
                                              "chdir",
                                              "memcpy",
                                              "memmove",
                                              "memset",
                                              "bcopy",
                                              "setjmp",
                                              "longjmp",
                                              "_setjmp",
                                              "sigsetjmp",
                                              "siglongjmp",
                                              "pthread_create",
                                              "malloc",
                                              "calloc",
                                              "realloc",
                                              "free",
                                              "new",
                                              "delete",
                                              "thread_local",
                                              "asm",
                                              "__asm",
                                              "__asm__",
                                              "__attribute",
                                              "__attribute__",
                                              "__declspec",
                                              "_Pragma",
                                              "__pragma",
                                              "__launch_bounds__",
                                              "__maxnreg__",
                                              "__cluster_dims__",
                                              "__noinline__",
                                              "argv",
                                              "argc",
                                              "envp",
                                              "ifstream",
                                              "ofstream",
                                              "fstream",
                                              "cout",
                                              "cerr",
                                              "clog",
                                              "cin",
                                              "filesystem",
                                              "getpid",
                                              "usleep",
                                              "sleep",
                                              "nanosleep",
                                              "gettimeofday",
                                              "clock_gettime",
                                              "random_device",
                                              "__FILE__",
                                              "__DATE__",
                                              "__TIME__",
                                              "__COUNTER__",
                                              "__BASE_FILE__",
                                              "__TIMESTAMP__",
                                              "__has_include",
                                              "offsetof"};
  return names;
}

bool forbidden_prefix(const std::string& w) {
  for (const char* p :
       {"gpulab",  "GPULAB",  "__gpulab", "gx",     "GX",      "__builtin", "__sanitizer",
        "__tsan",  "__asan",  "__ubsan",  "__msan", "__lsan",  "__libc",    "__cxa",
        "__gxx",   "__cuda",  "__nv",     "cuda",   "cu",      "_init",     "_fini",
        "__real_", "__wrap_", "__dso",    "__gnu",  "__GLIBC", "__sync_",   "__atomic_"}) {
    const std::string_view prefix(p);
    if (w.rfind(prefix, 0) != 0) continue;
    // cu/cuda: the host API (cudaMemcpy, cuLaunchKernel); device names (cuda::std) never start
    // that way in an exercise, but "cube", "cumulative" and friends do.
    if (prefix == "cu" && !(w.size() > 2 && std::isupper(static_cast<unsigned char>(w[2]))))
      continue;
    if (prefix == "cuda" && !(w.size() > 4 && std::isupper(static_cast<unsigned char>(w[4]))))
      continue;
    if ((prefix == "gx" || prefix == "GX") && w.size() > 2 && ident_char(w[2]) && w[2] != '_' &&
        w != "gx" && w != "GX")
      continue;  // gx_ and gx:: are gpulab's; "gxy" is a student's
    return true;
  }
  return false;
}

// A macro may name a constant the student uses (TILE, BLOCK): capitals, digits and _.
bool macro_name_ok(const std::string& n) {
  if (n.empty() || n[0] == '_' || forbidden_prefix(n)) return false;
  for (char c : n) {
    if (!(std::isupper(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  }
  return true;
}

const std::set<std::string>& allowed_includes() {
  static const std::set<std::string> names = {
      "cstdio",   "stdio.h",  "cmath",          "math.h",      "cstdint",
      "stdint.h", "climits",  "limits.h",       "cfloat",      "float.h",
      "cstddef",  "stddef.h", "cuda_runtime.h", "cuda_fp16.h", "cooperative_groups.h"};
  return names;
}

const std::set<std::string>& arithmetic_types() {
  static const std::set<std::string> names = {
      "int",     "unsigned", "signed",  "short",    "long",     "char",
      "float",   "double",   "bool",    "size_t",   "int8_t",   "int16_t",
      "int32_t", "int64_t",  "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  return names;
}

class Screen {
 public:
  Screen(std::vector<Token> t, std::vector<Refusal>& out) : t_(std::move(t)), out_(out) {}

  void run() {
    names_and_directives();
    scope(0, t_.size(), false);
  }

 private:
  void refuse(int line, const std::string& what, std::string en, std::string zh) {
    Refusal r{
        line, what, {fmt::format("line {}: {}", line, en), fmt::format("第 {} 行：{}", line, zh)}};
    for (const Refusal& o : out_) {
      if (o.text.en == r.text.en) return;
    }
    out_.push_back(std::move(r));
  }

  void names_and_directives() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const Token& k = t_[i];
      if (k.kind == Token::directive) {
        directive(k);
      } else if (k.kind == Token::ident) {
        name(k, i + 1 < t_.size() ? t_[i + 1].text : "");
      } else if (k.kind == Token::punct) {
        if (k.text == "[[") {
          refuse(k.line, "attribute",
                 "[[attributes]] are not allowed in an exercise file: they change how the code "
                 "is built or checked",
                 "练习文件中不允许使用 [[属性]]：它们会改变代码的编译或检查方式");
        } else if (k.text == "%:" || k.text == "<%" || k.text == "%>" || k.text == "<:" ||
                   k.text == ":>") {
          refuse(k.line, "digraph", "digraphs (" + k.text + ") are not allowed in an exercise file",
                 "练习文件中不允许使用双字符组（" + k.text + "）");
        } else if (k.text == "#" || k.text == "##") {
          refuse(k.line, "directive", "'" + k.text + "' is allowed only at the start of a #define",
                 "'" + k.text + "' 只能出现在 #define 的开头");
        }
      }
    }
  }

  void name(const Token& k, const std::string& next) {
    const std::string& w = k.text;
    if (w == "main") {
      refuse(k.line, "main",
             "a main() is not allowed: gpulab provides the host side; write only the kernel(s)",
             "不允许 main()：主机端由 gpulab 提供；只需编写核函数");
    } else if (w == "atexit" || w == "at_quick_exit" || w == "on_exit") {
      refuse(k.line, "atexit",
             w + " is not allowed: nothing of an exercise file may run outside its kernels",
             w + " 不允许使用：练习文件中的任何代码都不能在核函数之外运行");
    } else if (w == "__attribute__" || w == "__attribute" || w == "__declspec" ||
               w == "__launch_bounds__" || w == "__maxnreg__" || w == "__cluster_dims__" ||
               w == "__noinline__") {
      refuse(k.line, "attribute",
             w + " is not allowed in an exercise file: it changes how the code is built or checked",
             w + " 不允许出现在练习文件中：它会改变代码的编译或检查方式");
    } else if (w == "_Pragma" || w == "__pragma") {
      refuse(k.line, "pragma", w + " is not allowed in an exercise file",
             w + " 不允许出现在练习文件中");
    } else if (w == "asm" || w == "__asm" || w == "__asm__") {
      refuse(k.line, "asm", "inline assembly (" + w + ") is not allowed in an exercise file",
             "练习文件中不允许使用内联汇编（" + w + "）");
    } else if (w == "extern") {
      // extern __shared__ float s[]; (dynamic shared memory) is the one extern a kernel needs.
      if (next != "__shared__") {
        refuse(k.line, "extern",
               "extern is allowed only as extern __shared__: an exercise file stands alone",
               "只允许 extern __shared__：练习文件是独立的");
      }
    } else if (forbidden_names().count(w) != 0 || forbidden_prefix(w)) {
      refuse(k.line, "forbidden_name",
             fmt::format("'{}' is not allowed in an exercise file: kernels compute from their "
                         "arguments, and reach neither the process nor gpulab's own code",
                         w),
             fmt::format("练习文件中不允许使用 '{}'：核函数只根据参数计算，不能触及进程或 gpulab "
                         "自身的代码",
                         w));
    }
  }

  void directive(const Token& k) {
    std::string d = k.text.substr(k.text[0] == '%' ? 2 : 1);
    std::size_t p = 0;
    while (p < d.size() && std::isspace(static_cast<unsigned char>(d[p]))) ++p;
    std::size_t e = p;
    while (e < d.size() && ident_char(d[e])) ++e;
    const std::string word = d.substr(p, e - p);
    std::string rest = d.substr(e);
    if (const auto c = rest.find("/*"); c != std::string::npos) rest.resize(c);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front())))
      rest.erase(0, 1);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
    if (word.empty() && rest.empty()) return;  // the null directive
    if (word == "include") {
      std::string name = rest;
      if (name.size() >= 2 && ((name.front() == '<' && name.back() == '>') ||
                               (name.front() == '"' && name.back() == '"'))) {
        name = name.substr(1, name.size() - 2);
      }
      if (allowed_includes().count(name) == 0) {
        refuse(k.line, "include",
               fmt::format("#include {} is not allowed: an exercise file may include only the "
                           "standard maths, integer and stdio headers and cuda_runtime.h",
                           rest),
               fmt::format("不允许 #include {}：练习文件只能包含标准数学、整数、stdio 头文件和 "
                           "cuda_runtime.h",
                           rest));
      }
      return;
    }
    if (word == "define") {
      std::size_t q = 0;
      while (q < rest.size() && ident_char(rest[q])) ++q;
      const std::string macro = rest.substr(0, q);
      if (!macro_name_ok(macro)) {
        refuse(k.line, "define",
               fmt::format("#define {}: an exercise file may define only constants named in "
                           "capitals (#define TILE 16); a macro that renames a function, a CUDA "
                           "call or main is not allowed",
                           macro.empty() ? rest : macro),
               fmt::format("#define {}：练习文件只能定义大写命名的常量（#define TILE 16）；不允许"
                           "用宏改名函数、CUDA 调用或 main",
                           macro.empty() ? rest : macro));
        return;
      }
      // The body: the same names are refused there, and no # or ## (pasting makes new names).
      Spliced sp;
      sp.s = rest.substr(q);
      sp.line.assign(sp.s.size(), k.line);
      std::vector<Refusal> ignored;
      const std::vector<Token> body = Lexer(sp).run(ignored);
      for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i].kind == Token::ident)
          name(body[i], i + 1 < body.size() ? body[i + 1].text : "");
        if (body[i].kind == Token::directive || body[i].text == "#" || body[i].text == "##" ||
            body[i].text == "%:") {
          refuse(k.line, "define", "# and ## are not allowed in a #define of an exercise file",
                 "练习文件的 #define 中不允许使用 # 和 ##");
        }
      }
      return;
    }
    if (word == "pragma") {
      refuse(k.line, "pragma",
             "#pragma is not allowed in an exercise file: it changes how gpulab builds and checks "
             "the code (" +
                 rest + ")",
             "练习文件中不允许使用 #pragma：它会改变 gpulab 编译和检查代码的方式（" + rest + "）");
      return;
    }
    if (word == "undef") {
      refuse(k.line, "undef", "#undef is not allowed in an exercise file (" + rest + ")",
             "练习文件中不允许使用 #undef（" + rest + "）");
      return;
    }
    refuse(k.line, "directive",
           "#" + word +
               " is not allowed in an exercise file: only #include of a standard header and "
               "#define of a constant",
           "练习文件中不允许使用 #" + word + "：只允许 #include 标准头文件和 #define 常量");
  }

  // The matching close of the bracket at `i`, or `end`.
  std::size_t match(std::size_t i, std::size_t end) const {
    const std::string open = t_[i].text;
    const std::string close = open == "{" ? "}" : open == "(" ? ")" : open == "[" ? "]" : ">";
    int depth = 0;
    for (std::size_t k = i; k < end; ++k) {
      if (t_[k].kind != Token::punct) continue;
      if (t_[k].text == open) ++depth;
      if (t_[k].text == close && --depth == 0) return k;
    }
    return end;
  }

  bool has(std::size_t from, std::size_t to, const char* word) const {
    for (std::size_t k = from; k < to; ++k) {
      if (t_[k].kind == Token::ident && t_[k].text == word) return true;
    }
    return false;
  }

  // Declarations at namespace scope (or in a class body when `in_class`) from `begin` to `end`.
  void scope(std::size_t begin, std::size_t end, bool in_class) {
    std::size_t i = begin;
    while (i < end) {
      if (t_[i].kind == Token::directive) {
        ++i;
        continue;
      }
      if (t_[i].kind == Token::punct && t_[i].text == ";") {
        ++i;
        continue;
      }
      // access specifiers in a class
      if (in_class && t_[i].kind == Token::ident &&
          (t_[i].text == "public" || t_[i].text == "private" || t_[i].text == "protected") &&
          i + 1 < end && t_[i + 1].text == ":") {
        i += 2;
        continue;
      }
      // namespace X { ... }
      if (!in_class && t_[i].text == "namespace") {
        std::size_t k = i + 1;
        while (k < end && t_[k].text != "{" && t_[k].text != ";") ++k;
        if (k < end && t_[k].text == "{") {
          const std::size_t close = match(k, end);
          scope(k + 1, close, false);
          i = close + 1;
        } else {
          i = k + 1;  // namespace alias
        }
        continue;
      }
      // One declaration: up to a ';' at depth 0, or a body '{...}'.
      std::size_t k = i;
      std::size_t body = end;
      bool paren = false, assigned = false;
      std::size_t first_paren = end;
      while (k < end) {
        const Token& t = t_[k];
        if (t.kind == Token::punct) {
          if (t.text == ";") break;
          if (t.text == "(" || t.text == "[") {
            if (t.text == "(" && !assigned && first_paren == end) {
              paren = true;
              first_paren = k;
            }
            k = match(k, end) + 1;
            continue;
          }
          if (t.text == "=") assigned = true;
          if (t.text == "{") {
            body = k;
            break;
          }
        }
        ++k;
      }
      declaration(i, k, body, paren, first_paren, in_class);
      if (body == end) {
        i = k + 1;
        continue;
      }
      const std::size_t close = match(body, end);
      std::size_t after = close + 1;
      if (is_class_head(i, body)) {
        scope(body + 1, close, true);
        // `struct S {...} s;` declares an object too.
        if (after < end && t_[after].text != ";") {
          refuse(t_[after].line, "global_object",
                 "an object declared with its type is not allowed at file scope (its "
                 "constructor would run outside the kernels)",
                 "不允许在文件作用域中随类型一起声明对象（它的构造函数会在核函数之外运行）");
        }
      } else if (paren && !assigned) {
        function_body(body + 1, close);
        i = close + 1;
        continue;
      }
      // To the ';' that ends a class or a brace-initialised variable.
      while (after < end && t_[after].text != ";") {
        after = t_[after].text == "{" ? match(after, end) + 1 : after + 1;
      }
      i = after + 1;
    }
  }

  bool is_class_head(std::size_t from, std::size_t body) const {
    std::size_t k = from;
    if (k < body && t_[k].text == "template") {
      if (k + 1 < body && t_[k + 1].text == "<") k = match(k + 1, body) + 1;
    }
    for (; k < body; ++k) {
      const std::string& w = t_[k].text;
      if (w == "struct" || w == "class" || w == "union" || w == "enum") return true;
      if (w == "(" || w == "=") return false;
    }
    return false;
  }

  void declaration(std::size_t from, std::size_t to, std::size_t body, bool paren,
                   std::size_t first_paren, bool in_class) {
    if (from >= to && body == t_.size()) return;
    const std::size_t head_end = std::min(to, body);
    const int line = t_[std::min(from, t_.size() - 1)].line;
    std::size_t k = from;
    if (k < head_end && t_[k].text == "template" && k + 1 < head_end && t_[k + 1].text == "<") {
      k = match(k + 1, head_end) + 1;
    }
    if (k >= head_end && body != t_.size()) return;
    const std::string& first = k < t_.size() ? t_[k].text : "";
    if (first == "using" || first == "typedef" || first == "static_assert" || first == "friend")
      return;
    if (body != t_.size() && is_class_head(from, body)) return;
    if (first == "struct" || first == "class" || first == "union" || first == "enum") {
      // A forward declaration, or `struct S s;` (an object of a class type).
      if (head_end - k <= 2 || first == "enum") return;
    }
    const bool device = has(k, head_end, "__device__") || has(k, head_end, "__global__");
    const bool is_function = paren && !(first_paren < head_end && looks_like_init(first_paren));
    if (is_function) {
      if (in_class) return;  // member functions run only when a kernel calls them
      if (!device) {
        refuse(line, "host_code",
               "host code is not allowed in an exercise file: only __global__ and __device__ "
               "functions (gpulab provides the host side)",
               "练习文件中不允许主机代码：只允许 __global__ 和 __device__ 函数（主机端由 "
               "gpulab 提供）");
      }
      return;
    }
    // A variable (or a data member).
    const bool constant = has(k, head_end, "constexpr") || has(k, head_end, "const") ||
                          has(k, head_end, "__constant__");
    if (in_class) {
      if (has(k, head_end, "static") && !has(k, head_end, "constexpr")) {
        refuse(line, "static_initializer",
               "a static data member is not allowed in an exercise file (only static constexpr)",
               "练习文件中不允许静态数据成员（只允许 static constexpr）");
      }
      return;
    }
    bool arithmetic = false;
    for (std::size_t q = k; q < head_end; ++q) {
      if (t_[q].kind != Token::ident) continue;
      const std::string& w = t_[q].text;
      if (w == "__device__" || w == "__constant__" || w == "__managed__" || w == "const" ||
          w == "constexpr" || w == "static" || w == "inline" || w == "volatile") {
        continue;
      }
      arithmetic = arithmetic_types().count(w) != 0;
      break;
    }
    bool call_in_init = false;
    for (std::size_t q = k; q + 1 < to; ++q) {
      if (t_[q].kind == Token::ident && t_[q + 1].text == "(" && q > first_paren) {
        call_in_init = true;
      }
    }
    for (std::size_t q = k; q + 1 < to; ++q) {
      if (t_[q].text == "=") {
        // A call in the value: a name, a lambda ([...] {...}) or any bracket followed by '('.
        for (std::size_t r = q + 1; r < to; ++r) {
          const std::string& x = t_[r].text;
          if (x == "[") call_in_init = true;
          if (r + 1 < to && t_[r + 1].text == "(" &&
              ((t_[r].kind == Token::ident && x != "sizeof" && x != "alignof") || x == ")" ||
               x == "]" || x == "}" || x == ">")) {
            call_in_init = true;
          }
        }
        break;
      }
    }
    if (!arithmetic || call_in_init || !(device || constant)) {
      refuse(line, "static_initializer",
             "a variable at file scope may only be a __device__, __constant__ or const number "
             "with a constant value: an object or a computed value would run code outside the "
             "kernels",
             "文件作用域的变量只能是取常量值的 __device__、__constant__ 或 const 数值：对象或计算"
             "出的值会在核函数之外运行代码");
    }
  }

  // `T x(1, 2)` is a variable initialised by a constructor, not a function: its parentheses hold
  // values (numbers, literals, expressions), not parameter declarations.
  bool looks_like_init(std::size_t paren) const {
    const std::size_t close = match(paren, t_.size());
    if (close == paren + 1) return false;  // f()
    std::size_t tokens_in_param = 0;
    for (std::size_t k = paren + 1; k < close; ++k) {
      const Token& t = t_[k];
      if (t.kind == Token::number || t.kind == Token::literal) return true;
      if (t.kind == Token::punct) {
        if (t.text == ",") {
          if (tokens_in_param < 2) return true;
          tokens_in_param = 0;
          continue;
        }
        if (t.text != "*" && t.text != "&" && t.text != "::" && t.text != "<" && t.text != ">" &&
            t.text != "[" && t.text != "]" && t.text != "." && t.text != "=")
          return true;
        continue;
      }
      ++tokens_in_param;
    }
    return tokens_in_param < 2 && !(tokens_in_param == 1 && t_[close - 1].text == "void");
  }

  // Inside a function: a static local would be built on first use and destroyed at exit.
  void function_body(std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k) {
      if (t_[k].kind == Token::ident && t_[k].text == "static") {
        const std::string next = k + 1 < to ? t_[k + 1].text : "";
        if (next != "__shared__" && next != "const" && next != "constexpr") {
          refuse(t_[k].line, "static_local",
                 "a static variable in a function is not allowed in an exercise file (use "
                 "__shared__ for memory a block shares)",
                 "练习文件中不允许函数内的静态变量（线程块共享的内存请用 __shared__）");
        }
      }
    }
  }

  std::vector<Token> t_;
  std::vector<Refusal>& out_;
};

}  // namespace

std::vector<Refusal> screen_source(const std::string& text) {
  std::vector<Refusal> out;
  const Spliced sp = splice(text);
  std::vector<Token> tokens = Lexer(sp).run(out);
  Screen(std::move(tokens), out).run();
  std::stable_sort(out.begin(), out.end(),
                   [](const Refusal& a, const Refusal& b) { return a.line < b.line; });
  return out;
}

std::vector<std::string> kernel_declarations(const std::string& starter) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = starter.find("__global__", pos)) != std::string::npos) {
    const std::size_t brace = starter.find('{', pos);
    if (brace == std::string::npos) break;
    std::string sig = starter.substr(pos, brace - pos);
    while (!sig.empty() && std::isspace(static_cast<unsigned char>(sig.back()))) sig.pop_back();
    out.push_back(sig + ";");
    pos = brace;
  }
  return out;
}

}  // namespace gpulab::exercise
