#include "report/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "util/strings.h"

namespace reusesim::report {

namespace {

std::string fixed(double value, int decimals) {
  // Past 10^15 the digits a fixed format prints are noise (a double holds about 16): such a value
  // reads as 1.800e+19, not as twenty digits.
  constexpr double kLargestFixed = 1e15;
  char buffer[64];
  if (std::fabs(value) >= kLargestFixed) {
    std::snprintf(buffer, sizeof buffer, "%.3e", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  }
  return buffer;
}

bool is_text(const Cell& cell) { return std::holds_alternative<std::string>(cell); }

}  // namespace

std::string json_document_text(const nlohmann::ordered_json& document) {
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::optional<Format> format_from_name(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  return std::nullopt;
}

std::string format_number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

void Table::add_row(std::vector<Cell> cells) {
  if (cells.size() != columns_.size()) throw std::logic_error("table row has the wrong number of cells");
  rows_.push_back(std::move(cells));
}

std::string Table::to_text() const {
  std::vector<std::vector<std::string>> text(rows_.size(), std::vector<std::string>(columns_.size()));
  std::vector<std::size_t> widths;
  for (const Column& column : columns_) widths.push_back(column.name.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Cell& cell = rows_[r][c];
      std::string& out = text[r][c];
      if (std::holds_alternative<std::int64_t>(cell)) out = util::group_digits(std::get<std::int64_t>(cell));
      if (std::holds_alternative<double>(cell)) out = fixed(std::get<double>(cell), columns_[c].text_decimals);
      if (std::holds_alternative<std::string>(cell)) out = std::get<std::string>(cell);
      if (std::holds_alternative<std::monostate>(cell)) out = "-";
      widths[c] = std::max(widths[c], out.size());
    }
  }
  // Text columns are left-aligned, numbers right-aligned; a column is text if its first row is.
  std::string result;
  const auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string row;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool left = header ? (rows_.empty() || is_text(rows_.front()[c])) : is_text(rows_.front()[c]);
      const std::string padding(widths[c] - cells[c].size(), ' ');
      row += (c == 0 ? "" : "  ") + (left ? cells[c] + padding : padding + cells[c]);
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    result += row + "\n";
  };
  std::vector<std::string> header;
  for (const Column& column : columns_) header.push_back(column.name);
  line(header, true);
  for (const auto& row : text) line(row, false);
  return result;
}

std::string Table::to_csv() const {
  std::string result;
  for (std::size_t c = 0; c < columns_.size(); ++c) result += (c == 0 ? "" : ",") + columns_[c].name;
  result += "\n";
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) result += ",";
      const Cell& cell = row[c];
      if (std::holds_alternative<std::int64_t>(cell)) result += std::to_string(std::get<std::int64_t>(cell));
      if (std::holds_alternative<double>(cell)) result += format_number(std::get<double>(cell));
      if (std::holds_alternative<std::string>(cell)) result += csv_escape(std::get<std::string>(cell));
    }
    result += "\n";
  }
  return result;
}

nlohmann::ordered_json Table::to_json() const {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : rows_) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < row.size(); ++c) {
      const Cell& cell = row[c];
      nlohmann::ordered_json& value = object[columns_[c].name];
      if (std::holds_alternative<std::int64_t>(cell)) value = std::get<std::int64_t>(cell);
      if (std::holds_alternative<double>(cell)) value = std::get<double>(cell);
      if (std::holds_alternative<std::string>(cell)) value = std::get<std::string>(cell);
    }
    rows.push_back(std::move(object));
  }
  return rows;
}

}  // namespace reusesim::report
