// The student edition of the exercises (CMake option GPULAB_STUDENT_EDITION): each exercise file
// without its reference solution, its planted mistakes (each a one-line change from a solution)
// and its final hint (nearly the answer). Pure text in, text out, with no other dependency: the
// build tool apps/student_exercises runs it on exercises/*.txt before they are embedded, and a
// unit test runs it on the same files.
#pragma once

#include <string>
#include <string_view>

namespace gpulab::exercise {

// The first line of a student edition's file: catalog's parse() then takes a file without a
// solution, and `exercise solution` says the edition holds none.
inline constexpr std::string_view kStudentEditionLine = "@@ edition student";

// `text` (an exercise file, docs/exercise.md's format) for the student edition: the `solution`
// and every `mistake` section left out, and the last `hint.en` and `hint.zh` when there are two
// or more; the rest byte for byte, after kStudentEditionLine.
std::string student_edition(std::string_view text);

}  // namespace gpulab::exercise
