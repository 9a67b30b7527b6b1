#include "report/columns.h"

#include <stdexcept>

namespace reusesim::report {

namespace {

// Appends the lines placed after `key`, each followed by the lines placed after it.
void append_after(const std::vector<LegendLine>& lines, const std::string& key, std::string& text, std::size_t& placed) {
  for (const LegendLine& line : lines) {
    if (line.after != key) continue;
    text += line.text + "\n";
    ++placed;
    append_after(lines, line.key, text, placed);
  }
}

}  // namespace

std::string legend_text(const std::vector<LegendLine>& lines) {
  std::string text;
  std::size_t placed = 0;
  append_after(lines, "", text, placed);
  for (const LegendLine& line : lines) {
    if (line.after) continue;
    text += line.text + "\n";
    ++placed;
    append_after(lines, line.key, text, placed);
  }
  if (placed != lines.size()) throw std::logic_error("a legend line follows a line the legend does not have");
  return text;
}

}  // namespace reusesim::report
