// A library's status codes as a table: each code's name and the words its Get*Name/Get*String
// call gives (CUDA's cudaError_t in errors.cpp, cuBLAS's cublasStatus_t in cublas.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace gpulab::rt {

template <class Code>
struct CodeText {
  Code code;
  const char* name;
  const char* text;
};
// A row: the code, its name spelt as in the code, and its words.
#define GPULAB_CODE_TEXT(code, text) \
  { code, #code, text }

// The row of `code`, or nullptr when the table lacks it.
template <class Code, std::size_t N>
const CodeText<Code>* find_code(const CodeText<Code> (&table)[N], Code code) {
  for (const CodeText<Code>& t : table)
    if (t.code == code) return &t;
  return nullptr;
}

// The name of `code`, or `unknown` when the table lacks it.
template <class Code, std::size_t N>
const char* code_name(const CodeText<Code> (&table)[N], Code code, const char* unknown) {
  const CodeText<Code>* t = find_code(table, code);
  return t != nullptr ? t->name : unknown;
}
// The code named `name`, or `unknown` when the table lacks it.
template <class Code, std::size_t N>
Code code_named(const CodeText<Code> (&table)[N], std::string_view name, Code unknown) {
  for (const CodeText<Code>& t : table)
    if (t.name == name) return t.code;
  return unknown;
}
// The words for `code`, or `unknown` when the table lacks it.
template <class Code, std::size_t N>
const char* code_words(const CodeText<Code> (&table)[N], Code code, const char* unknown) {
  const CodeText<Code>* t = find_code(table, code);
  return t != nullptr ? t->text : unknown;
}

}  // namespace gpulab::rt
