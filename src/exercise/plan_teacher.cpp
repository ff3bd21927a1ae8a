// The tests of a teacher's exercise (part of plan.hpp): its `@@ test` sections read into the same
// Plan as gpulab's own exercises (inputs drawn from the seed, launches, outputs poisoned or zeroed
// before them, float64 references from the `expect` expressions). Every mistake in a section is a
// UsageError naming the file and the line. The format is in docs/exercise.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "exercise/plan.hpp"
#include "profile/rules.hpp"

namespace gpulab::exercise {

namespace {

[[noreturn]] void bad(const std::string& file, int line, const std::string& what) {
  throw UsageError(
      both("teacher's exercises: {}:{}: {}", "教师的练习：{}:{}：{}", file, line, what));
}

// An `expect` expression: numbers, + - * /, parentheses, the inputs (element i, or NAME[index]),
// i, n, row, col, rows, cols, k (in sum), abs sqrt exp log sin cos tanh min max, and sum(e): e
// added up for k over the elements of the first input it names without an index.
struct Node {
  enum class Kind { number, var, buffer, index, neg, add, sub, mul, div, call, sum } kind;
  double value = 0;
  std::string name;
  std::vector<std::unique_ptr<Node>> args;
};

struct Scope {
  const std::map<std::string, std::vector<float>>* inputs = nullptr;
  std::map<std::string, double> vars;  // i, n, row, col, rows, cols, k
  bool in_sum = false;
};

class Parser {
 public:
  Parser(std::string text, const std::string& file, int line,
         const std::map<std::string, std::vector<float>>& inputs)
      : s_(std::move(text)), file_(file), line_(line), inputs_(inputs) {}

  std::unique_ptr<Node> parse() {
    auto n = expr();
    skip();
    if (at_ < s_.size()) fail("unexpected '" + s_.substr(at_, 12) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    bad(file_, line_, fmt::format("in the expression '{}': {}", s_, what));
  }
  void skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_])) != 0) ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::unique_ptr<Node> make(Node::Kind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    return n;
  }
  // One level of left-associative binary operators: operands read by `operand`, joined by the
  // operator characters of `ops` into nodes of their kinds.
  struct BinaryOp {
    char c;
    Node::Kind kind;
  };
  std::unique_ptr<Node> left_assoc(std::unique_ptr<Node> (Parser::*operand)(),
                                   const std::array<BinaryOp, 2>& ops) {
    auto left = (this->*operand)();
    while (true) {
      const BinaryOp* op = nullptr;
      for (const BinaryOp& o : ops) {
        if (eat(o.c)) {
          op = &o;
          break;
        }
      }
      if (op == nullptr) return left;
      auto n = make(op->kind);
      n->args.push_back(std::move(left));
      n->args.push_back((this->*operand)());
      left = std::move(n);
    }
  }
  std::unique_ptr<Node> expr() {
    return left_assoc(&Parser::term, {{{'+', Node::Kind::add}, {'-', Node::Kind::sub}}});
  }
  std::unique_ptr<Node> term() {
    return left_assoc(&Parser::unary, {{{'*', Node::Kind::mul}, {'/', Node::Kind::div}}});
  }
  std::unique_ptr<Node> unary() {
    if (eat('-')) {
      auto n = make(Node::Kind::neg);
      n->args.push_back(unary());
      return n;
    }
    return primary();
  }
  std::unique_ptr<Node> primary() {
    skip();
    if (eat('(')) {
      auto n = expr();
      if (!eat(')')) fail("a ')' is missing");
      return n;
    }
    if (at_ < s_.size() &&
        (std::isdigit(static_cast<unsigned char>(s_[at_])) != 0 || s_[at_] == '.')) {
      std::size_t used = 0;
      auto n = make(Node::Kind::number);
      try {
        n->value = std::stod(s_.substr(at_), &used);
      } catch (const std::exception&) {
        fail("a number cannot be read at '" + s_.substr(at_, 12) + "'");
      }
      at_ += used;
      if (at_ < s_.size() && s_[at_] == 'f') ++at_;  // 10.0f, as in CUDA
      return n;
    }
    std::string name;
    while (at_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[at_])) != 0 || s_[at_] == '_')) {
      name += s_[at_++];
    }
    if (name.empty())
      fail(at_ < s_.size() ? "unexpected '" + s_.substr(at_, 1) + "'" : "it ends too soon");
    static const std::map<std::string, std::size_t> functions = {
        {"abs", 1}, {"sqrt", 1}, {"exp", 1}, {"log", 1}, {"sin", 1},
        {"cos", 1}, {"tanh", 1}, {"min", 2}, {"max", 2}, {"sum", 1}};
    if (const auto f = functions.find(name); f != functions.end()) {
      if (!eat('(')) fail(name + " needs its arguments in parentheses");
      auto n = make(name == "sum" ? Node::Kind::sum : Node::Kind::call);
      n->name = name;
      n->args.push_back(expr());
      while (eat(',')) n->args.push_back(expr());
      if (!eat(')')) fail("a ')' is missing after " + name + "'s arguments");
      if (n->args.size() != f->second) {
        fail(fmt::format("{} takes {} argument(s), not {}", name, f->second, n->args.size()));
      }
      return n;
    }
    if (inputs_.count(name) != 0) {
      if (eat('[')) {
        auto n = make(Node::Kind::index);
        n->name = name;
        n->args.push_back(expr());
        if (!eat(']')) fail("a ']' is missing after " + name + "[");
        return n;
      }
      auto n = make(Node::Kind::buffer);
      n->name = name;
      return n;
    }
    static const char* vars[] = {"i", "n", "row", "col", "rows", "cols", "k"};
    for (const char* v : vars) {
      if (name == v) {
        auto n = make(Node::Kind::var);
        n->name = name;
        return n;
      }
    }
    fail("'" + name +
         "' is no input of this test, variable (i, n, row, col, rows, cols, k) or "
         "function");
  }

  std::string s_;
  std::size_t at_ = 0;
  const std::string& file_;
  int line_;
  const std::map<std::string, std::vector<float>>& inputs_;
};

// The first input `n` names without an index (sum's range), or "".
std::string first_buffer(const Node& n) {
  if (n.kind == Node::Kind::buffer) return n.name;
  if (n.kind == Node::Kind::sum) return "";  // a sum inside has its own range
  for (const auto& a : n.args) {
    if (std::string b = first_buffer(*a); !b.empty()) return b;
  }
  return "";
}

class Evaluator {
 public:
  Evaluator(const std::string& file, int line) : file_(file), line_(line) {}

  double eval(const Node& n, Scope& s) const {
    switch (n.kind) {
      case Node::Kind::number:
        return n.value;
      case Node::Kind::var: {
        const auto v = s.vars.find(n.name);
        if (v == s.vars.end()) bad(file_, line_, "k is the index of a sum(...): use it inside one");
        return v->second;
      }
      case Node::Kind::buffer:
        return element(n.name, s.vars.at(s.in_sum ? "k" : "i"), s);
      case Node::Kind::index:
        return element(n.name, eval(*n.args[0], s), s);
      case Node::Kind::neg:
        return -eval(*n.args[0], s);
      case Node::Kind::add:
        return eval(*n.args[0], s) + eval(*n.args[1], s);
      case Node::Kind::sub:
        return eval(*n.args[0], s) - eval(*n.args[1], s);
      case Node::Kind::mul:
        return eval(*n.args[0], s) * eval(*n.args[1], s);
      case Node::Kind::div:
        return eval(*n.args[0], s) / eval(*n.args[1], s);
      case Node::Kind::call: {
        const double a = eval(*n.args[0], s);
        if (n.name == "abs") return std::fabs(a);
        if (n.name == "sqrt") return std::sqrt(a);
        if (n.name == "exp") return std::exp(a);
        if (n.name == "log") return std::log(a);
        if (n.name == "sin") return std::sin(a);
        if (n.name == "cos") return std::cos(a);
        if (n.name == "tanh") return std::tanh(a);
        const double b = eval(*n.args[1], s);
        return n.name == "min" ? std::min(a, b) : std::max(a, b);
      }
      case Node::Kind::sum: {
        const std::string range = first_buffer(*n.args[0]);
        if (range.empty()) {
          bad(file_, line_,
              "sum(...) must name an input without an index: it adds over its "
              "elements");
        }
        Scope inner = s;
        inner.in_sum = true;
        double total = 0;
        const std::size_t count = s.inputs->at(range).size();
        for (std::size_t k = 0; k < count; ++k) {
          inner.vars["k"] = static_cast<double>(k);
          total += eval(*n.args[0], inner);
        }
        return total;
      }
    }
    return 0;
  }

 private:
  double element(const std::string& name, double index, const Scope& s) const {
    const std::vector<float>& v = s.inputs->at(name);
    if (!(index >= 0) || index >= static_cast<double>(v.size()) || index != std::floor(index)) {
      bad(file_, line_,
          fmt::format("{} has {} elements: element {} was asked for", name, v.size(), index));
    }
    return v[static_cast<std::size_t>(index)];
  }

  const std::string& file_;
  int line_;
};

// "256", "16x16", "4x2x1".
Dim3 dims(const std::string& text, const std::string& file, int line, const char* what) {
  Dim3 d;
  std::uint32_t* parts[3] = {&d.x, &d.y, &d.z};
  std::istringstream in(text);
  std::string part;
  int k = 0;
  while (std::getline(in, part, 'x')) {
    if (k == 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 10 || std::stoull(part) == 0 || std::stoull(part) > 2147483647ull) {
      bad(file, line,
          fmt::format("{} {}: give X, XxY or XxYxZ of positive whole numbers", what, text));
    }
    *parts[k++] = static_cast<std::uint32_t>(std::stoull(part));
  }
  if (k == 0) bad(file, line, fmt::format("{} needs a size", what));
  return d;
}

std::size_t count(const std::string& text, const std::string& file, int line, const char* what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 9 || std::stoull(text) == 0 || std::stoull(text) > (1u << 24)) {
    bad(file, line, fmt::format("{} {}: give a whole number from 1 to 16777216", what, text));
  }
  return static_cast<std::size_t>(std::stoull(text));
}

}  // namespace

void teacher_plan(const Exercise& e, std::uint64_t seed, bool draw, Plan& plan) {
  const std::string& file = e.file.empty() ? e.id : e.file;
  const std::vector<KernelSignature> kernels = kernel_signatures(e.starter);
  for (const TestSpec& spec : e.tests) {
    PlanTest t;
    t.name = spec.name;
    std::map<std::string, std::uint32_t> buffer;  // name -> index
    std::map<std::string, std::vector<float>> inputs;
    std::map<std::uint32_t, bool> zeroed, launched;
    std::uint64_t stream = 0;
    for (const auto& [line, text] : spec.lines) {
      std::istringstream in(text);
      std::vector<std::string> w;
      for (std::string word; in >> word;) w.push_back(word);
      const std::string& what = w[0];
      if (what == "input" || what == "output") {
        if (w.size() < 3)
          bad(file, line, what + " NAME ELEMENTS [rows R]" + (what == "output" ? " [zero]" : ""));
        const std::string& name = w[1];
        if (buffer.count(name) != 0) bad(file, line, "a second buffer named " + name);
        PlanBuffer b;
        b.name = name;
        b.elements = count(w[2], file, line, "elements");
        bool zero = false;
        for (std::size_t k = 3; k < w.size(); ++k) {
          if (w[k] == "rows" && k + 1 < w.size()) {
            b.rows = count(w[++k], file, line, "rows");
            if (b.elements % b.rows != 0) {
              bad(file, line, fmt::format("{} rows do not divide {} elements", b.rows, b.elements));
            }
          } else if (w[k] == "zero" && what == "output") {
            zero = true;
          } else {
            bad(file, line,
                "unknown word '" + w[k] + "' (rows R" + (what == "output" ? ", zero)" : ")"));
          }
        }
        b.output = what == "output";
        if (!b.output) {
          ++stream;
          b.data.resize(b.elements);
          for (std::size_t i = 0; i < b.elements; ++i) b.data[i] = input_value(seed, stream, i);
          inputs[name] = b.data;
        }
        buffer[name] = static_cast<std::uint32_t>(t.buffers.size());
        zeroed[buffer[name]] = zero;
        t.buffers.push_back(std::move(b));
      } else if (what == "launch") {
        // launch KERNEL grid G block B args A...
        if (w.size() < 7 || w[2] != "grid" || w[4] != "block" || w[6] != "args") {
          bad(file, line, "launch KERNEL grid G block B args ARG... (G and B: X, XxY or XxYxZ)");
        }
        PlanStep s;
        s.kernel = w[1];
        const auto k = std::find_if(kernels.begin(), kernels.end(),
                                    [&](const KernelSignature& x) { return x.name == s.kernel; });
        if (k == kernels.end()) bad(file, line, "the starter has no __global__ " + s.kernel);
        s.grid = dims(w[3], file, line, "grid");
        s.block = dims(w[5], file, line, "block");
        if (std::uint64_t{s.block.x} * s.block.y * s.block.z > 1024 || s.block.z > 64 ||
            s.grid.y > 65535 || s.grid.z > 65535) {
          bad(file, line,
              fmt::format("grid {} block {}: past CUDA's limits (1024 threads a "
                          "block, z at most 64; grid y and z at most 65535)",
                          w[3], w[5]));
        }
        const std::size_t given = w.size() - 7;
        if (given != k->params.size()) {
          bad(file, line,
              fmt::format("{} takes {} arguments, the launch gives {}", s.kernel, k->params.size(),
                          given));
        }
        for (std::size_t p = 0; p < given; ++p) {
          const std::string& arg = w[7 + p];
          const KernelParam& param = k->params[p];
          PlanArg a;
          if (param.pointer()) {
            const auto b = buffer.find(arg);
            if (b == buffer.end()) {
              bad(file, line,
                  fmt::format("argument {} ({} {}) must name an input or output; "
                              "'{}' is neither",
                              p + 1, param.type, param.name, arg));
            }
            a.kind = PlanArg::Kind::buffer;
            a.buffer = b->second;
            if (t.buffers[b->second].output) {
              const bool first = !launched[b->second];
              launched[b->second] = true;
              s.outputs.emplace_back(b->second, !first              ? Before::keep
                                                : zeroed[b->second] ? Before::zero
                                                                    : Before::poison);
            }
          } else {
            char* end = nullptr;
            const double v = std::strtod(arg.c_str(), &end);
            const bool whole = arg.find_first_not_of("-0123456789") == std::string::npos;
            if (end == arg.c_str() || (*end != '\0' && std::string(end) != "f")) {
              bad(file, line,
                  fmt::format("argument {} ({} {}): '{}' is not a number", p + 1, param.type,
                              param.name, arg));
            }
            if (param.type == "float") {
              a.kind = PlanArg::Kind::f32;
              a.f = static_cast<float>(v);
            } else {
              if (!whole || std::fabs(v) > 2147483647.0) {
                bad(file, line,
                    fmt::format("argument {} ({} {}): '{}' is not a whole number", p + 1,
                                param.type, param.name, arg));
              }
              a.kind = PlanArg::Kind::i32;
              a.i = static_cast<std::int32_t>(v);
            }
          }
          s.args.push_back(a);
        }
        t.steps.push_back(std::move(s));
      } else if (what == "expect") {
        // expect NAME = EXPR [tol RTOL ATOL]
        const auto eq = text.find('=');
        if (w.size() < 4 || w[2] != "=" || eq == std::string::npos) {
          bad(file, line, "expect OUTPUT = EXPRESSION [tol RTOL ATOL]");
        }
        const auto b = buffer.find(w[1]);
        if (b == buffer.end() || !t.buffers[b->second].output) {
          bad(file, line, "'" + w[1] + "' is no output of this test");
        }
        if (!launched[b->second]) bad(file, line, w[1] + " is expected before a launch writes it");
        std::string expression = text.substr(eq + 1);
        PlanExpect x;
        x.buffer = b->second;
        x.step = static_cast<std::uint32_t>(t.steps.size() - 1);
        if (const auto tol = expression.find(" tol "); tol != std::string::npos) {
          std::istringstream tin(expression.substr(tol + 5));
          if (!(tin >> x.rtol >> x.atol) || x.rtol < 0 || x.atol < 0) {
            bad(file, line, "tol RTOL ATOL: two numbers, at least 0");
          }
          expression.resize(tol);
        }
        const std::unique_ptr<Node> tree = Parser(expression, file, line, inputs).parse();
        const PlanBuffer& out = t.buffers[b->second];
        Scope scope;
        scope.inputs = &inputs;
        const std::size_t cols = out.elements / out.rows;
        scope.vars = {
            {"n", double(out.elements)}, {"rows", double(out.rows)}, {"cols", double(cols)}};
        const Evaluator ev(file, line);
        x.want.resize(out.elements);
        for (std::size_t i = 0; i < out.elements; ++i) {
          scope.vars["i"] = double(i);
          scope.vars["row"] = double(i / cols);
          scope.vars["col"] = double(i % cols);
          x.want[i] = ev.eval(*tree, scope);
          if (!std::isfinite(x.want[i])) {
            bad(file, line,
                fmt::format("{}[{}] would be {}: not a number a kernel can match", w[1], i,
                            x.want[i]));
          }
        }
        t.expects.push_back(std::move(x));
      } else if (what == "rule") {
        static const char* rules[] = {"max_global_reads", "max_global_writes", "uses_shared",
                                      "max_barriers_per_block"};
        const auto& counters = profile::counter_rule_names();
        const bool counter =
            w.size() == 3 && std::find(counters.begin(), counters.end(), w[1]) != counters.end();
        if (w.size() != 3 ||
            (!counter && std::find(std::begin(rules), std::end(rules), w[1]) == std::end(rules))) {
          bad(file, line,
              "rule RULE LIMIT, RULE one of max_global_reads, max_global_writes, "
              "uses_shared, max_barriers_per_block, max_sectors_per_request, "
              "max_bank_conflicts, min_branch_uniformity");
        }
        if (counter && !profile::parse_counter_rule(w[1] + "=" + w[2])) {
          bad(file, line, "the rule's limit '" + w[2] + "' is not a number >= 0 (a % at most 100)");
        }
        char* end = nullptr;
        const double limit = std::strtod(w[2].c_str(), &end);
        if (*end != '\0' || limit < 0)
          bad(file, line, "the rule's limit '" + w[2] + "' is not a number >= 0");
        t.rules.push_back({w[1], limit});
      } else {
        bad(file, line, "unknown line '" + what + "' (input, output, launch, expect, rule)");
      }
    }
    if (t.steps.empty()) bad(file, spec.line, "the test launches no kernel");
    if (t.expects.empty()) bad(file, spec.line, "the test expects nothing (expect OUTPUT = ...)");
    for (std::uint32_t b = 0; b < t.buffers.size(); ++b) {
      if (t.buffers[b].output && !launched[b]) {
        bad(file, spec.line, "the output " + t.buffers[b].name + " is passed to no launch");
      }
    }
    // Every test has the same buffers, in the same order (the feedback names them by place).
    if (!plan.tests.empty()) {
      const PlanTest& first = plan.tests.front();
      bool same = first.buffers.size() == t.buffers.size();
      for (std::size_t b = 0; same && b < t.buffers.size(); ++b) {
        same = first.buffers[b].name == t.buffers[b].name &&
               first.buffers[b].output == t.buffers[b].output;
      }
      if (!same) {
        bad(file, spec.line,
            "every test declares the same inputs and outputs, in the same order, "
            "as the first");
      }
    }
    plan.tests.push_back(std::move(t));
    if (draw) break;  // --draw: the first test
  }
}

void check_teacher_exercises() {
  for (const Exercise& e : all()) {
    if (e.file.empty()) continue;
    Plan p;
    teacher_plan(e, 1, false, p);
    // The starter's kernels must each be something the runner can launch: float buffers and
    // int or float values.
    for (const KernelSignature& k : kernel_signatures(e.starter)) {
      for (const KernelParam& param : k.params) {
        const bool buffer = param.pointer() && param.type.find("float") != std::string::npos;
        static const char* values[] = {"int",          "float",     "unsigned",
                                       "unsigned int", "const int", "const float"};
        const bool value = !param.pointer() && std::find(std::begin(values), std::end(values),
                                                         param.type) != std::end(values);
        if (buffer || value) continue;
        bad(e.file, p.tests.empty() ? 1 : e.tests.front().line,
            fmt::format("the starter's {} takes '{} {}': a kernel of an exercise takes float "
                        "buffers and int or float values",
                        k.name, param.type, param.name));
      }
    }
  }
}

}  // namespace gpulab::exercise
