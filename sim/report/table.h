#pragma once
// One table of results, written as aligned text, CSV (header row first) or JSON rows.
// Integers stay exact in every format; text tables group digits for reading.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace reusesim::report {

enum class Format { table, csv, json };
std::optional<Format> format_from_name(const std::string& name);

// std::monostate: not applicable ("-" in text, empty in CSV, null in JSON).
using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;

struct Column {
  std::string name;      // CSV/JSON key, with its unit: "weight_bytes", "ideal_time_s"
  int text_decimals = 0;  // digits after the point for doubles in text tables
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<Cell> cells);

  std::string to_text() const;
  std::string to_csv() const;
  nlohmann::ordered_json to_json() const;  // an array of objects keyed by column name

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// One CSV field: quoted (with "" for ") when it holds a comma, a quote or a newline.
std::string csv_escape(const std::string& text);
// A JSON document as text: two-space indents and a final newline. Names read from input files
// are checked to be UTF-8; paths given on the command line need not be, and their other bytes
// become U+FFFD rather than making the JSON writer throw.
std::string json_document_text(const nlohmann::ordered_json& document);
// Shortest round-trip-safe text for CSV ("%.10g").
std::string format_number(double value);

}  // namespace reusesim::report
