// gpulab exercise grade's results for machines (see grade.hpp): gpulab's JSON, Gradescope's
// results.json (its autograder specification: top-level score, execution_time, output, tests[]
// with name, number, score, max_score, status, output), JUnit XML (testsuites / testsuite /
// testcase with failure or error, as Jenkins, GitHub's test reporters and GitLab read it).
#include <fmt/format.h>

#include <ctime>
#include <filesystem>

#include "core/i18n_format.hpp"
#include "exercise/grade.hpp"

namespace gpulab::exercise {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// `s` as valid UTF-8: each byte of a broken sequence becomes U+FFFD.
std::string valid_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80         ? 1
                      : (c >> 5) == 6  ? 2
                      : (c >> 4) == 14 ? 3
                      : (c >> 3) == 30 ? 4
                                       : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
    }
    if (ok && len == 2) ok = c >= 0xC2;  // no overlong forms
    if (ok && len == 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogates
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = c <= 0xF4 && !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s, i, len);
    i += len;
  }
  return out;
}

// Text for XML 1.0: valid UTF-8, the five special characters escaped, control characters (which
// XML 1.0 cannot hold at all) written as \xNN.
std::string xml_text(const std::string& raw) {
  const std::string s = valid_utf8(raw);
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string row_name(const GradeRow& row) {
  const std::string file = row.file.empty() ? fmt::format("{:02}-{}.cu", row.number, row.exercise)
                                            : fs::path(row.file).filename().string();
  return row.student + "/" + file;
}

// A row counts for a point unless its file names no exercise (a stray .cu file).
bool scored(const GradeRow& row) {
  return !row.exercise.empty();
}

}  // namespace

json row_json(const GradeRow& row) {
  json tests = json::array();
  for (const GradeTest& t : row.tests) {
    json x = {
        {"name", valid_utf8(t.name.en)}, {"name_zh", valid_utf8(t.name.zh)}, {"pass", t.pass}};
    if (!t.pass) {
      x["reason"] = valid_utf8(t.reason.en);
      x["reason_zh"] = valid_utf8(t.reason.zh);
    }
    tests.push_back(x);
  }
  json diagnoses = json::array();
  for (const auto& d : row.diagnoses) {
    diagnoses.push_back({{"mistake", d.mistake},
                         {"message", valid_utf8(d.text.en)},
                         {"message_zh", valid_utf8(d.text.zh)}});
  }
  return {{"student", valid_utf8(row.student)},
          {"file", valid_utf8(row.file)},
          {"exercise", row.exercise},
          {"number", row.number},
          {"verdict", row.verdict},
          {"tests", tests},
          {"diagnoses", diagnoses},
          {"source_sha256", row.source_sha256},
          {"stopped", row.stopped},
          {"kernel_output", valid_utf8(row.kernel_output)},
          {"seconds", row.seconds}};
}

GradeRow row_from_json(const json& j) {
  GradeRow row;
  row.student = j.at("student").get<std::string>();
  row.file = j.at("file").get<std::string>();
  row.exercise = j.at("exercise").get<std::string>();
  row.number = j.at("number").get<int>();
  row.verdict = j.at("verdict").get<std::string>();
  for (const json& t : j.at("tests")) {
    row.tests.push_back({{t.at("name").get<std::string>(), t.at("name_zh").get<std::string>()},
                         {t.value("reason", ""), t.value("reason_zh", "")},
                         t.at("pass").get<bool>()});
  }
  for (const json& d : j.at("diagnoses")) {
    row.diagnoses.push_back(
        {d.at("mistake").get<std::string>(),
         {d.at("message").get<std::string>(), d.at("message_zh").get<std::string>()}});
  }
  row.source_sha256 = j.at("source_sha256").get<std::string>();
  row.stopped = j.at("stopped").get<std::string>();
  row.kernel_output = j.at("kernel_output").get<std::string>();
  row.seconds = j.at("seconds").get<double>();
  return row;
}

Text verdict_words(const std::string& verdict) {
  if (verdict == "passed") return {"PASSED", "通过"};
  if (verdict == "failed") return {"FAILED", "未通过"};
  if (verdict == "not_verified") return {"NOT VERIFIED", "未验证"};
  if (verdict == "refused") return {"REFUSED", "已拒绝"};
  if (verdict == "missing") return {"MISSING", "缺少"};
  return {"NOT GRADED", "未评分"};
}

std::string row_feedback(const GradeRow& row, Lang l) {
  std::string s = verdict_words(row.verdict).in(l) + "\n";
  for (const GradeTest& t : row.tests) {
    s += fmt::format(
        "  {}  {}{}\n", t.pass ? tr(l, "pass", "通过") : tr(l, "FAIL", "失败"),
        say(l, "test {}", "测试 {}", l == Lang::zh && !t.name.zh.empty() ? t.name.zh : t.name.en),
        t.pass || t.reason.en.empty()
            ? std::string()
            : std::string(tr(l, ": ", "：")) +
                  (l == Lang::zh && !t.reason.zh.empty() ? t.reason.zh : t.reason.en));
  }
  for (const auto& d : row.diagnoses) {
    s += "- " + (l == Lang::zh && !d.text.zh.empty() ? d.text.zh : d.text.en) + "\n";
  }
  return s;
}

json grade_json(const GradeResult& r) {
  json rows = json::array();
  json counts = json::object();
  for (const char* v : {"passed", "failed", "not_verified", "refused", "missing", "not_graded"}) {
    counts[v] = 0;
  }
  for (const GradeRow& row : r.rows) {
    rows.push_back(row_json(row));
    counts[row.verdict] = counts.value(row.verdict, 0) + 1;
  }
  return {{"command", "exercise grade"},
          {"gpulab_version", r.version},
          {"seed", r.seed},
          {"backend", r.backend},
          {"jobs", r.jobs},
          {"seconds", r.seconds},
          {"containment",
           {{"mode", r.containment.mode},
            {"why_not", r.containment.why_not.en},
            {"why_not_zh", r.containment.why_not.zh},
            {"limits",
             {{"timeout_seconds", static_cast<double>(r.timeout.count()) / 1000.0},
              {"cpu_seconds", r.limits.cpu.count()},
              {"memory_bytes", r.limits.memory_bytes},
              {"file_bytes", r.limits.file_bytes},
              {"scratch_bytes", r.limits.scratch_bytes},
              {"processes", r.limits.processes}}}}},
          {"rows", rows.size()},
          {"summary", counts},
          {"results", rows}};
}

json gradescope_json(const GradeResult& r, Lang l) {
  json tests = json::array();
  double score = 0;
  for (const GradeRow& row : r.rows) {
    const double max = scored(row) ? 1.0 : 0.0;
    const double got = row.verdict == "passed" ? max : 0.0;
    score += got;
    std::string output = row_feedback(row, l);
    if (!row.kernel_output.empty()) {
      output += std::string(tr(l, "The kernels printed:", "核函数的输出：")) + "\n" +
                row.kernel_output + "\n";
    }
    if (!row.source_sha256.empty()) {
      output += std::string(tr(l, "source sha256 ", "源文件 sha256 ")) + row.source_sha256 + "\n";
    }
    json t = {{"name",
               valid_utf8(row.exercise.empty() ? fs::path(row.file).filename().string()
                                               : say(l, "Exercise {}: {} ({})", "练习 {}：{}（{}）",
                                                     row.number, row.exercise, row_name(row)))},
              {"score", got},
              {"max_score", max},
              {"status", got == max && max > 0 ? "passed" : "failed"},
              {"output", valid_utf8(output)},
              {"output_format", "text"},
              {"visibility", "visible"},
              {"extra_data",
               {{"verdict", row.verdict},
                {"student", valid_utf8(row.student)},
                {"source_sha256", row.source_sha256}}}};
    if (row.number > 0) t["number"] = std::to_string(row.number);
    if (row.verdict == "passed" && max == 0) t["status"] = "passed";
    tests.push_back(std::move(t));
  }
  const std::string summary = say(l,
                                  "gpulab {} exercise grade, seed {}, on the {}, contained: {}. "
                                  "{} of {} passed.",
                                  "gpulab {} exercise grade，随机种子 {}，在{}上，隔离方式：{}。"
                                  "通过 {} / {} 个。",
                                  r.version, r.seed,
                                  r.backend == "cuda" ? std::string(tr(l, "GPU", "GPU"))
                                                      : std::string(tr(l, "emulator", "模拟器")),
                                  r.containment.mode, r.passed(), r.rows.size());
  return {{"score", score},
          {"execution_time", static_cast<long long>(r.seconds + 0.5)},
          {"output", summary},
          {"output_format", "text"},
          {"test_output_format", "text"},
          {"test_name_format", "text"},
          {"visibility", "visible"},
          {"stdout_visibility", "hidden"},
          {"extra_data",
           {{"gpulab_version", r.version}, {"seed", r.seed}, {"containment", r.containment.mode}}},
          {"tests", tests}};
}

std::string junit_xml(const GradeResult& r, Lang l) {
  std::size_t tests = 0, failures = 0, errors = 0;
  std::string suites;
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  for (const GradeRow& row : r.rows) {
    // Each test of the check, then the verdict (rules, checks, the name: what decides a pass).
    std::string cases;
    std::size_t n = 0, f = 0, e = 0;
    const std::string classname =
        xml_text(row.student + "." + (row.exercise.empty() ? "file" : row.exercise));
    for (const GradeTest& t : row.tests) {
      ++n;
      cases += fmt::format("    <testcase name=\"{}\" classname=\"{}\"",
                           xml_text(say(l, "test {}", "测试 {}", t.name.in(l))), classname);
      if (t.pass) {
        cases += "/>\n";
      } else {
        ++f;
        cases += fmt::format(">\n      <failure message=\"{}\" type=\"test\"/>\n    </testcase>\n",
                             xml_text(t.reason.en.empty() ? std::string(tr(l, "failed", "未通过"))
                                                          : t.reason.in(l)));
      }
    }
    ++n;
    cases += fmt::format("    <testcase name=\"verdict\" classname=\"{}\" time=\"{:.3f}\"",
                         classname, row.seconds);
    if (row.verdict == "passed") {
      cases += "/>\n";
    } else {
      std::string body;
      for (const auto& d : row.diagnoses) body += d.text.in(l) + "\n";
      const bool error = row.verdict == "not_graded";
      (error ? e : f) += 1;
      cases +=
          fmt::format(">\n      <{0} message=\"{1}\" type=\"{2}\">{3}</{0}>\n    </testcase>\n",
                      error ? "error" : "failure", xml_text(verdict_words(row.verdict).in(l)),
                      row.verdict, xml_text(body));
    }
    std::string props = fmt::format(
        "      <property name=\"verdict\" value=\"{}\"/>\n"
        "      <property name=\"source_sha256\" value=\"{}\"/>\n"
        "      <property name=\"gpulab_version\" value=\"{}\"/>\n"
        "      <property name=\"seed\" value=\"{}\"/>\n"
        "      <property name=\"containment\" value=\"{}\"/>\n",
        row.verdict, row.source_sha256, xml_text(r.version), r.seed, r.containment.mode);
    suites += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
        "time=\"{:.3f}\" timestamp=\"{}\" hostname=\"localhost\">\n    <properties>\n{}    "
        "</properties>\n{}",
        xml_text(row_name(row)), n, f, e, row.seconds, stamp, props, cases);
    if (!row.kernel_output.empty()) {
      suites += "    <system-out>" + xml_text(row.kernel_output) + "</system-out>\n";
    }
    suites += "  </testsuite>\n";
    tests += n;
    failures += f;
    errors += e;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"gpulab exercise grade\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n{}</testsuites>\n",
      tests, failures, errors, r.seconds, suites);
}

}  // namespace gpulab::exercise
