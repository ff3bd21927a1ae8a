#!/usr/bin/env python3
# Scans gpulab's sources and Chinese lessons for user-visible text without its Chinese twin and
# for the wording rules of the Chinese text; exits 1 and names file:line for each finding.
"""Usage: check_words.py SOURCE_DIR

1. Untranslated messages: in src/ (see SCANNED), a string literal with three or more English words
   must be one half of an English/Chinese pair: inside tr(...), F(...), both(...), say(...),
   words(...), or directly followed by a literal with Chinese in it (Text{en, zh}, Error(en, zh)).
   Exempt: option and command descriptions (CLI11's help, owned by the help text), JSON keys,
   comments, and the files in EXEMPT_FILES (with the reason there).
2. One term per concept, in lessons/zh and in src/'s Chinese literals: 阿姆达尔定律 (not 阿姆达定律),
   归约 (not 规约).
3. No literal markdown: single-asterisk emphasis is not rendered by gpulab learn.
4. No ASCII space after full-width punctuation (outside markdown tables and code), and no ASCII
   colon, semicolon or comma right after a Chinese character.
5. A 0-based block index is "线程块 N", never "第 N 个线程块" from a format field (lesson 11 counts
   "线程块2" from 0 and "第3个线程块" from 1).
6. No English word in the Chinese lessons' prose: outside code (indented blocks, `spans`), quotes
   ("..." of the notes or of a message), a term's English gloss right after it (线程束（warp）),
   file names and dotted, called or subscripted identifiers (tile[32][33]), a word of three or
   more lower-case letters must be one of ALLOWED_IN_ZH (C types and keywords the questions name,
   tools, yes for an answer).
7. One way to format a message: in src/ and apps/, no fmt::runtime or fmt::vformat outside
   RUNTIME_FORMAT_ALLOWED. A message in two languages is say(lang, en, zh, args...) or
   both(en, zh, args...) (core/i18n_format.hpp), whose format strings fmt checks against the
   arguments at compile time; fmt::runtime(tr(l, en, zh)) defers that check to the user's run,
   and to the language the tests did not run in.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
SCANNED = ["src/commands", "src/core", "src/backend", "src/calc", "src/cuda", "src/run/program.cpp",
           "src/run/contain.cpp", "src/exercise/feedback.cpp", "src/exercise/grade.cpp",
           "src/exercise/grade_formats.cpp", "src/simt/scheduler.cpp", "src/simt/race_check.cpp",
           "src/simt/cooperative_launch.cpp", "src/simt/launch.cpp"]
EXEMPT_FILES = {
    # Spec-sheet sources are citations (titles of English documents), not messages.
    "src/calc/gpu_specs.cpp",
    # Kernel source text, embedded as files.
    "src/core/embedded.cpp",
}
# English on purpose, each with its reason (file, a piece of the literal, why).
KNOWN_ENGLISH = [
    ("src/commands/hello.cpp", "Hello from block", "what the kernel's printf prints: CUDA code"),
    ("src/core/version.cpp", "", "--version is printed before --lang is read; one line"),
    ("src/core/lesson.cpp", "", "lesson-file syntax errors are for lesson authors (tests parse "
     "every built-in lesson); the error itself is bilingual"),
    ("src/core/output.cpp", "cannot write to standard output", "the zh twin is made in "
     "flush_stdout; main() prints this one (cli's) when stdout fails"),
    # Left as they were, for the owners of these files (listed in the report):
    ("src/exercise/grade_formats.cpp", "<testsuites name", "JUnit XML's markup: the run's name "
     "for CI servers, not a message"),
    ("src/run/program.cpp", "more compiler output cut", "inside the compiler's own output"),
    ("src/run/program.cpp", "Formal parameter space", "nvcc's own words, put before the "
     "compiler's output that they sum up"),
    ("src/commands/warp_measure.cpp", "gpulab: warps per SM", "a progress label on stderr"),
    ("src/commands/index_map.cpp", "the kernel wrote block", "the mismatch detail quoted in a "
     "bilingual line: the kernel's raw record"),
]

# Files that may format with a format string known only at run time (rule 7), each with why.
RUNTIME_FORMAT_ALLOWED = {
    "src/core/i18n_format.hpp": "say() and both() themselves: the format strings are checked "
                                "where they are called",
}
RUNTIME_FORMAT = re.compile(r"\bfmt::(runtime|vformat)\s*\(")

# Calls whose string arguments are not messages of gpulab's output, or are one half of a pair.
PAIRED_CALLS = {"tr", "F", "both", "say", "words", "UsageError", "RuntimeFailure", "CudaError",
                "bad_value", "count_noun", "plural"}
NOT_OUTPUT_CALLS = {"add_option", "add_flag", "add_subcommand", "add_command", "footer",
                    "description", "type_name", "group", "find", "starts_with", "getenv",
                    "run_capture", "Progress", "median_launch_ms", "add_test", "static_assert"}
CJK = re.compile(r"[\u4e00-\u9fff]")
WORDS = re.compile(r"[A-Za-z]{2,}(?:[ ][A-Za-z']{2,}){2,}")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')

# Lower-case words the Chinese lessons may use outside code (rule 6), each a name, not English:
# C types and keywords and the variables of formulas that questions (plain text) name, the tools
# a student runs (ncu: Nsight Compute's command, named as nvcc and ptxas are), and the answer word
# of yes/no questions.
ALLOWED_IN_ZH = {
    "int", "float", "double", "void", "static", "else", "row", "col", "alpha", "count", "arg",
    "gpulab", "nvcc", "ptxas", "ninja", "ncu", "memcheck", "racecheck", "synccheck", "initcheck",
    "yes",
}

findings = []


def strip_comments(text):
    # Keeps line numbers: comments become spaces, string literals stay.
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            m = STRING.match(text, i)
            if not m:
                out.append(text[i])
                i += 1
                continue
            out.append(m.group(0))
            i = m.end()
        elif text.startswith("R\"(", i):
            j = text.find(')"', i)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def enclosing_call(code, pos):
    # The name of the innermost call whose '(' is open at pos (string literals already blanked).
    depth = 0
    i = pos - 1
    while i >= 0:
        c = code[i]
        if c == ")" or c == "}":
            depth += 1
        elif c == "(" or c == "{":
            if depth == 0:
                if c == "{":
                    return "{"
                m = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*(?:<[^<>]*>)?\s*$", code[:i])
                return m.group(1) if m else ""
            depth -= 1
        elif c == ";" and depth == 0:
            return ""
        i -= 1
    return ""


def check_source(path, rel):
    text = strip_comments(path.read_text(encoding="utf-8"))
    blank = STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)
    literals = list(STRING.finditer(text))
    for k, m in enumerate(literals):
        body = m.group(0)[1:-1]
        line = text.count("\n", 0, m.start()) + 1
        if CJK.search(body):
            check_chinese(body, rel, line, literal=True)
            continue
        if not WORDS.search(body) or rel in EXEMPT_FILES:
            continue
        # Adjacent literals are one string: look past them for the Chinese twin.
        j = k
        while j + 1 < len(literals) and text[literals[j].end():literals[j + 1].start()].strip() == "":
            j += 1
        after = text[literals[j].end():literals[j + 1].start()] if j + 1 < len(literals) else ";"
        if j + 1 < len(literals) and after.strip() in {",", ""} and CJK.search(literals[j + 1].group(0)):
            continue
        # A two-language statement: Error(fmt::format(en, ...), fmt::format(zh, ...)).
        end = blank.find(";", m.end())
        if any(CJK.search(x.group(0)) for x in literals[k + 1:] if x.start() < end):
            continue
        if any(rel == f and s in body for f, s, _ in KNOWN_ENGLISH):
            continue
        call = enclosing_call(blank, m.start())
        if call in PAIRED_CALLS or call in NOT_OUTPUT_CALLS:
            continue
        # JSON keys and values: {"key", value}.
        if call == "{" and after.strip().startswith(","):
            continue
        findings.append(f"{rel}:{line}: English text without a Chinese twin: \"{body[:70]}\"")


def check_runtime_format(path, rel):
    if rel in RUNTIME_FORMAT_ALLOWED:
        return
    text = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
    code = STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)
    for m in RUNTIME_FORMAT.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        findings.append(f"{rel}:{line}: fmt::{m.group(1)}: write the message with say(lang, en, zh, "
                        "...) or both(en, zh, ...) (core/i18n_format.hpp), checked at compile time")


def check_chinese(text, rel, line, literal=False):
    if "阿姆达定律" in text:
        findings.append(f"{rel}:{line}: 阿姆达定律: the term is 阿姆达尔定律")
    if "规约" in text:
        findings.append(f"{rel}:{line}: 规约: the term is 归约")
    if literal and re.search(r"第 ?\{\} ?个线程块", text) and "从 1 数" not in text:
        findings.append(f"{rel}:{line}: 第 {{}} 个线程块 for a 0-based index: write 线程块 {{}}")
    for m in re.finditer(r"[\u4e00-\u9fff][:;,](?=\s|$)", text):
        findings.append(f"{rel}:{line}: ASCII '{m.group(0)[1]}' after Chinese: use the full-width one")
    # (bold markers in between print as nothing: "。** 直到" shows "。 直到")
    for m in re.finditer(r"[，。；：！？、）](?:\*\*)? +(?=[^\s|])", text):
        findings.append(f"{rel}:{line}: a space after full-width '{m.group(0)[0]}'")


def english_in_chinese(path, rel):
    # Paragraphs, not lines: a `span` may go over a line break. Code blocks are blanked (their
    # newlines kept, for the line numbers).
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    kept = []
    in_code = False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        code = in_code or line.startswith("```") or line.startswith("    ")
        directive = re.match(r"@(demo|answer|tolerance)\b", line)
        kept.append("" if code or directive else re.sub(r"^@(question|explain) ", "", line))
    prose = "\n".join(kept)
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    for pattern in (r"`[^`]*`", r'"[^"\n]*"', r"(?<=[\u4e00-\u9fff])(?:\*\*)?（[^（）]*）",
                    r"[A-Za-z0-9_./-]+\.(?:cu|cuh|py|cpp|md)\b", r"[A-Za-z_][A-Za-z0-9_.]*\(\)?",
                    r"[A-Za-z_][A-Za-z0-9_]*(?=\[)",
                    r"[A-Za-z_][A-Za-z0-9_]*(?:[._][A-Za-z0-9_]+)+", r"compute-sanitizer"):
        prose = re.sub(pattern, blank, prose)
    for m in re.finditer(r"(?<![A-Za-z0-9_.])[a-z]{3,}(?![A-Za-z0-9_.(])", prose):
        if m.group(0) not in ALLOWED_IN_ZH:
            line = prose.count("\n", 0, m.start()) + 1
            findings.append(f"{rel}:{line}: English word in the Chinese text: {m.group(0)}")


def check_lesson(path, rel):
    if rel.startswith("lessons/zh/"):
        english_in_chinese(path, rel)
    in_code = False
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("    "):
            continue
        prose = re.sub(r"`[^`]*`", "C", line)
        check_chinese(prose, rel, n)
        for m in re.finditer(r"(?<![*A-Za-z0-9_])\*(?![\s*])[^*\n]{1,40}?(?<![\s*])\*(?!\*)", prose):
            findings.append(f"{rel}:{n}: single-asterisk emphasis prints literally: {m.group(0)}")


for part in SCANNED:
    p = ROOT / part
    files = [p] if p.is_file() else sorted(list(p.rglob("*.cpp")) + list(p.rglob("*.hpp")))
    for f in files:
        check_source(f, str(f.relative_to(ROOT)))
for part in ("src", "apps"):
    for f in sorted((ROOT / part).rglob("*")):
        if f.suffix in {".cpp", ".hpp", ".cu", ".cuh", ".h", ".inl"} and f.is_file():
            check_runtime_format(f, str(f.relative_to(ROOT)))
for f in sorted((ROOT / "lessons").rglob("*.md")):
    check_lesson(f, str(f.relative_to(ROOT)))

for f in findings:
    print(f)
print(f"{len(findings)} finding(s)")
sys.exit(1 if findings else 0)
