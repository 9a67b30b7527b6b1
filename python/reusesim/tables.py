"""Typed DataFrames of the CLI's tables.

Every table the CLI writes has its columns declared once (sim/report/columns.h) and each cell is an
integer, a number or a text; the JSON output keeps that kind (integers as JSON integers, numbers
with a point, texts as strings, an empty cell as null). The kinds are read from there and each
column is typed by its kind:

  integer  int64; float64 with NaN when a cell is empty (exact up to 2**53)
  number   float64, NaN where empty
  text     object (str), NaN where empty

A column whose JSON cells are all null (the energy columns without a technology) is a number. A
column the JSON does not have (a trace's own: job, the swept keys, ...) is typed by its text: an
integer if every non-empty cell is one, else a number if every one is, else a text.
"""

import csv
import io
import math

import pandas as pd

from .errors import RunError

INTEGER = "integer"
NUMBER = "number"
TEXT = "text"


def _kind(value):
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    return TEXT


def kinds_of(records):
    """{column: kind} of JSON row objects (the CLI's `--format json` rows)."""
    kinds = {}
    for record in records:
        for column, value in record.items():
            kind = _kind(value)
            known = kinds.get(column)
            if known is None or kind is None or known == kind:
                kinds[column] = known or kind
            elif {known, kind} == {INTEGER, NUMBER}:
                kinds[column] = NUMBER
            else:
                kinds[column] = TEXT
    return {column: kind or NUMBER for column, kind in kinds.items()}


def _parses(cells, convert):
    try:
        for cell in cells:
            convert(cell)
    except ValueError:
        return False
    return True


def _kind_of_text(cells):
    present = [cell for cell in cells if cell != ""]
    if present and _parses(present, int):
        return INTEGER
    if present and _parses(present, float):
        return NUMBER
    return TEXT


def _series(cells, kind):
    """`cells` as a Series of `kind`: each cell a value of it or None (empty)."""
    if kind == INTEGER:
        if any(cell is None for cell in cells):
            return pd.Series([math.nan if cell is None else float(cell) for cell in cells], dtype="float64")
        return pd.Series(cells, dtype="int64")
    if kind == NUMBER:
        return pd.Series([math.nan if cell is None else float(cell) for cell in cells], dtype="float64")
    return pd.Series([math.nan if cell is None else cell for cell in cells], dtype="object")


def _convert(text, kind):
    if text == "":
        return None
    if kind == INTEGER:
        return int(text)
    if kind == NUMBER:
        return float(text)
    return text


def frame_from_csv(text, kinds, source, error=RunError):
    """The CSV `text` (header first; `source` names it in errors, raised as `error`) as a DataFrame
    typed by `kinds`; columns not in `kinds` are typed by their text."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise error(f"{source}: empty, expected a CSV header")
    header, body = rows[0], rows[1:]
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise error(f"{source}:{line}: {len(row)} cells, expected {len(header)} (the header's)")
    columns = {}
    for index, column in enumerate(header):
        cells = [row[index] for row in body]
        kind = kinds.get(column) or _kind_of_text(cells)
        converted = []
        for line, cell in enumerate(cells, start=2):
            try:
                converted.append(_convert(cell, kind))
            except ValueError:
                raise error(f"{source}:{line}: {column}: {cell!r} is not an {kind}") from None
        columns[column] = _series(converted, kind)
    return pd.DataFrame(columns, columns=header)


def frame_from_records(records, columns, kinds):
    """JSON row objects as a DataFrame of `columns` (in that order) typed by `kinds`."""
    return pd.DataFrame({column: _series([record.get(column) for record in records], kinds[column])
                         for column in columns}, columns=columns)


def split_totals(frame):
    """(layer rows, TOTAL rows) of a table whose `layer` column names each row, indexes renumbered."""
    total = frame["layer"] == "TOTAL"
    return frame[~total].reset_index(drop=True), frame[total].reset_index(drop=True)
