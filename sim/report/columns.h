#pragma once
// A result table's columns, each declared once: its name, unit and meaning, how a TOTAL row gets
// its cell, how a row's cell is read, and its line in a legend. The header and the cells of every
// format (report/table.h) and the legend's lines are generated from the declarations.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/table.h"

namespace reusesim::report {

// How a TOTAL row (a batch's, after its layers) gets a column's cell.
enum class Total {
  none,       // the table has no TOTAL row
  sum,        // the layers' values added up (ResultColumn::add_to_total)
  recompute,  // the column's formula over the TOTAL's sums: a rate, a ratio, an energy
  batch,      // the DRAM's statistics over the whole batch (latency percentiles do not add up)
  same,       // what the batch's rows have (copied by add_to_total where read from the result)
  label,      // a word of its own: TOTAL, step
  empty,      // nothing: an empty text
  only,       // on TOTAL rows only, empty on the layers'
};

// Where a column is explained in a legend (stats.txt): by default a line "name: description" of
// its own, in the column's place.
struct Legend {
  enum Form {
    line,
    joined,    // "; name: description" at the end of the line before
    covered,   // the line of its group explains it (the group's first column has that line)
    unlisted,  // no line
  };
  Form form = line;
  std::string label;  // the line's label when not the column's name ("dram_*_bytes")
  std::string text;   // the line's text when not the column's description (a group's)
  // The line goes after the line of this column instead of in its place ("": first).
  std::optional<std::string> after;
};

// Result: what a row shows, and what a TOTAL adds up; Context: what else its cells read (the
// spec, the row's place in the report, figures derived once per row).
template <typename Result, typename Context>
struct ResultColumn {
  std::string name;         // header, CSV and JSON key, with its unit: "time_s", "dram_read_bytes"
  std::string unit;         // of one value: "s", "bytes", "name" for a text
  std::string description;  // what a value means
  Total total = Total::none;
  int text_decimals = 0;  // digits after the point for doubles in text tables
  std::function<Cell(const Result&, const Context&)> value;
  // Total::sum adds a layer's value into the TOTAL's result; Total::same copies it.
  std::function<void(Result& total, const Result& layer)> add_to_total;
  Legend legend;
};

// One line of a legend, as generated: `key` is its column's name.
struct LegendLine {
  std::string key;
  std::string text;  // "label: text"
  std::optional<std::string> after;
};

template <typename Result, typename Context>
Table table_of(const std::vector<ResultColumn<Result, Context>>& columns) {
  std::vector<Column> header;
  for (const auto& column : columns) header.push_back({column.name, column.text_decimals});
  return Table(std::move(header));
}

template <typename Result, typename Context>
std::vector<Cell> cells_of(const std::vector<ResultColumn<Result, Context>>& columns, const Result& result,
                           const Context& context) {
  std::vector<Cell> cells;
  cells.reserve(columns.size());
  for (const auto& column : columns) cells.push_back(column.value(result, context));
  return cells;
}

// Adds `layer` into `total`, column by column.
template <typename Result, typename Context>
void accumulate(const std::vector<ResultColumn<Result, Context>>& columns, Result& total, const Result& layer) {
  for (const auto& column : columns) {
    if (column.add_to_total) column.add_to_total(total, layer);
  }
}

// The columns of `columns` named in `names`, in the order of `names` (a name not there is skipped).
template <typename C>
std::vector<C> named(const std::vector<C>& columns, const std::vector<std::string>& names) {
  std::vector<C> kept;
  for (const std::string& name : names) {
    for (const C& column : columns) {
      if (column.name == name) kept.push_back(column);
    }
  }
  return kept;
}

// The columns of `columns` not named in `names`, in order.
template <typename C>
std::vector<C> all_but(const std::vector<C>& columns, const std::vector<std::string>& names) {
  std::vector<C> kept;
  for (const C& column : columns) {
    bool skipped = false;
    for (const std::string& name : names) skipped = skipped || column.name == name;
    if (!skipped) kept.push_back(column);
  }
  return kept;
}

// `inner`'s columns in a table of other rows: named `prefix` + name, each cell
// cell_of(inner column, result, context), and combined on TOTAL as `total` (or as declared).
template <typename Result, typename Context, typename InnerResult, typename InnerContext, typename CellOf>
std::vector<ResultColumn<Result, Context>> nested(const std::vector<ResultColumn<InnerResult, InnerContext>>& inner,
                                                  const std::string& prefix, std::optional<Total> total,
                                                  CellOf cell_of) {
  std::vector<ResultColumn<Result, Context>> columns;
  for (const ResultColumn<InnerResult, InnerContext>& column : inner) {
    columns.push_back({prefix + column.name, column.unit, column.description, total.value_or(column.total),
                       column.text_decimals,
                       [column, cell_of](const Result& result, const Context& context) {
                         return cell_of(column, result, context);
                       },
                       {}, column.legend});
  }
  return columns;
}

// `columns` explained by one legend line, `line`, on the first of them.
template <typename C>
std::vector<C> under_one_line(std::vector<C> columns, Legend line) {
  for (C& column : columns) column.legend.form = Legend::covered;
  if (!columns.empty()) columns.front().legend = std::move(line);
  return columns;
}

template <typename C>
void append(std::vector<C>& columns, std::vector<C> more) {
  for (C& column : more) columns.push_back(std::move(column));
}

// The legend lines of `columns`, in their order (LegendLine::after not applied yet).
template <typename Result, typename Context>
std::vector<LegendLine> legend_lines(const std::vector<ResultColumn<Result, Context>>& columns) {
  std::vector<LegendLine> lines;
  for (const auto& column : columns) {
    const Legend& legend = column.legend;
    if (legend.form == Legend::line) {
      lines.push_back({column.name,
                       (legend.label.empty() ? column.name : legend.label) + ": " +
                           (legend.text.empty() ? column.description : legend.text),
                       legend.after});
    } else if (legend.form == Legend::joined && !lines.empty()) {
      lines.back().text += "; " + column.name + ": " + column.description;
    }
  }
  return lines;
}

// The lines in legend order, one per line of text: each where it stands, or right after the line
// it names in `after` (after each other in their order, when several name one line).
std::string legend_text(const std::vector<LegendLine>& lines);

}  // namespace reusesim::report
