// Laying text out for the terminal's width: prose re-wrapped at word boundaries (and between
// Chinese characters) with hanging indents, preformatted lines (tables, drawings, code) cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/output.hpp"

namespace gpulab {

// Prose never runs longer than this, however wide the terminal: longer lines are hard to read,
// and the lessons and explanations are written for it.
inline constexpr std::size_t kProseWidth = 100;

// Marks a line that lay_out() keeps as written (code, an assembly listing): never wrapped, cut
// when too wide. It goes first on the line; lay_out() removes it.
inline constexpr char kVerbatim = '\x1f';
// `block` with each of its lines marked kVerbatim.
std::string verbatim(std::string_view block);

// Starts each further row of a code line too wide for the terminal: what follows it on the row
// goes on the line above with nothing between ("↪ x" continues with " x"). It is never part of the
// code, so a student types the line in whole.
inline constexpr std::string_view kContinuation = "\u21aa";
// A code line (colour codes allowed) for `width` columns: whole when it fits, else broken before
// a space where one is near the end of a row (else anywhere), each further row indented like
// the line and starting with kContinuation. Nothing of the code is left out.
std::string wrap_code(std::string_view line, std::size_t width);

// `line` cut to at most `width` columns, ending in "…" when it was longer; a colour it started is
// reset after the cut.
std::string cut_to_width(std::string_view line, std::size_t width);

// A command's text, as its renderer made it (lines already broken for a wide terminal), for
// `width` columns. Each line is prose or preformatted:
// - verbatim (kVerbatim: code, a listing): wrapped as code (wrap_code), never cut;
// - preformatted: a gap of two spaces or more inside it (table columns, "label  value" rows), a
//   box-drawing character, or a plot's axis; a "label  value" row whose value is prose wraps under
//   the value; anything else too wide is cut (cut_to_width) and one note at the end says so;
// - prose: lines that continue one another (the next starts with a lower-case letter, or this one
//   ends in , ; ， 、 ；) form a paragraph; a paragraph with a line longer than the width (or than
//   kProseWidth) is joined and wrapped again, with a hanging indent under a bullet ("- ", "* ",
//   "1. ").
// Lines that fit are never touched, so a wide terminal sees the renderer's text unchanged.
std::string lay_out(std::string_view text, std::size_t width, Lang lang);

// A lesson step's text (markdown-like: blank-line separated paragraphs, "- " and "1. " items
// whose continuation lines are indented less than 4, code and drawings indented 4 or more,
// "| a | b |" tables) for style.width() columns with `indent` spaces in front: paragraphs and
// items are re-flowed, tables drawn by Table (a table too wide becomes a list), code blocks kept
// as they are and wrapped as code (wrap_code) when wider than the terminal.
std::string lay_out_lesson(std::string_view text, const Style& style, std::size_t indent);

// Writes `text` laid out for stdout's width; the one way learn and quiz print prose.
void print_laid_out(std::string_view text, Lang lang);

}  // namespace gpulab
