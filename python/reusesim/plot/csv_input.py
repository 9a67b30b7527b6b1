"""The CSV files the figures read (written by `reusesim figure`, sim/trace/figure.cpp): reading
them, checking every value and turning them into what the figures draw. Bad input raises
InputError with `FILE:LINE: ...`; extra columns are ignored; notes (input read but not drawn as
it is) go to the `note` callable each loader is given.

The roofline figure (reusesim.plot.roofline):

ROOFS_CSV (figure_roofs.csv), one row per panel, in panel order:
  panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops[,noc_gbps]
    peak_gops           compute roof, 1e9 ops/s (1 MAC = 2 ops)
    dram_gbps           DRAM bandwidth, 1e9 bytes/s (slope roof: gops = dram_gbps * ops_per_byte);
                        empty: no DRAM roof (an unlimited ideal memory, `dram: {ideal: unlimited}`)
    ridge_ops_per_byte  peak_gops / the slope's bandwidth (empty: computed; a mismatch > 1% is a
                        note); must be empty when there is no slope (dram_gbps and noc_gbps empty)
    sram_gops           SRAM-bandwidth ceiling in Gops/s, empty when SRAM does not bind
    noc_gbps            optional column: the network-on-chip's read bound, 1e9 bytes/s, where it is
                        below dram_gbps (empty, or no column, where it is not); the slope is then
                        the NoC's: gops = noc_gbps * ops_per_byte

POINTS_CSV (figure_points.csv), one row per point:
  panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency
    panel         must name a panel of ROOFS_CSV
    kind          `network` or `layer`
    type          layer type (any string; one fixed colour per type)
    series        points of one (panel, kind, series) with more than one batch form a batch sweep
    batch         positive integer (may be empty: never part of a sweep)
    ops_per_byte, gops
                  empty, zero or non-finite: the point is skipped (counted in a note)
    efficiency    not drawn; checked to be numeric when present

The energy figures (reusesim.plot.energy, docs/energy-model.md):

LAYERS_CSV (figure_energy_layers.csv), one row per layer of a job:
  panel,kind,model,batch,layer,dram_uj,sram_uj,array_uj,vector_uj,dma_uj,static_uj
    kind: `network` (a layer of a whole-network job) or `layer` (a layer a trace entry picked);
    energy per sample (the job's energy / its batch) in microjoules, by component; an empty dram_uj
    is an ideal memory (drawn as 0)
NETWORKS_CSV (figure_energy_networks.csv), one row per whole-network job:
  panel,sweep,model,batch,latency_s,energy_uj,ops
    panel: the accelerator variant; sweep: its swept values ("dram.channels=2 ..."), empty when
    nothing is swept; latency_s: the batch's time; energy_uj: per sample; ops: 1 MAC = 2 ops
"""

import csv
import math

ROOF_COLUMNS = ["panel", "accelerator", "peak_gops", "dram_gbps", "ridge_ops_per_byte", "sram_gops"]
POINT_COLUMNS = ["panel", "kind", "model", "layer", "type", "series", "batch", "ops_per_byte", "gops",
                 "efficiency"]
ENERGY_COLUMNS = ["dram_uj", "sram_uj", "array_uj", "vector_uj", "dma_uj", "static_uj"]
LAYER_COLUMNS = ["panel", "kind", "model", "batch", "layer"] + ENERGY_COLUMNS
NETWORK_COLUMNS = ["panel", "sweep", "model", "batch", "latency_s", "energy_uj", "ops"]
TOKEN_COLUMNS = ["panel", "model", "phase", "length", "batch", "uj_per_token", "tokens_per_joule"]
SCALING_COLUMNS = ["panel", "line", "chips", "throughput", "unit"]


class InputError(ValueError):
    """Bad input; the message names the file and, where there is one, the line."""


# --------------------------------------------------------------------------------------------
# Any CSV file

def read_csv(path, required):
    """Returns [(line, {column: value})] of the data rows; raises InputError."""
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror or e}")
    rows = []
    line = 1
    with f:
        reader = csv.reader(f)
        try:
            header = None
            for row in reader:
                line = reader.line_num
                if header is None:
                    header = [h.strip() for h in row]
                    if header and header[0].startswith("\ufeff"):
                        header[0] = header[0][1:]
                    missing = [c for c in required if c not in header]
                    if missing:
                        raise InputError(
                            f"{path}:{line}: missing column{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)} (expected header: {','.join(required)})")
                    continue
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise InputError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
                rows.append((line, dict(zip(header, row))))
            if header is None:
                raise InputError(f"{path}:1: empty file (expected header: {','.join(required)})")
        except csv.Error as e:
            raise InputError(f"{path}:{reader.line_num or line}: malformed CSV: {e}")
        except UnicodeDecodeError:
            raise InputError(f"{path}:{reader.line_num + 1}: not valid UTF-8")
        except OSError as e:
            raise InputError(f"{path}: cannot read: {e.strerror or e}")
    return rows


def parse_number(path, line, col, text, optional=False):
    """The number in text; None when it is empty and optional; raises InputError."""
    s = text.strip()
    if not s:
        if optional:
            return None
        raise InputError(f"{path}:{line}: {col}: empty value, expected a number")
    try:
        return float(s)
    except ValueError:
        raise InputError(f"{path}:{line}: {col}: non-numeric value {s!r}")


# --------------------------------------------------------------------------------------------
# The roofline figure

class Roof:
    """One panel of the roofline figure: peak (Gops/s), dram (GB/s) and ridge (ops/B), both None
    for an ideal memory, noc (GB/s) where the network-on-chip binds, else None, sram (Gops/s) or
    None. set_memory sets dram, noc and the ridge."""
    __slots__ = ("panel", "accelerator", "peak", "dram", "noc", "ridge", "sram")

    def set_memory(self, dram, noc):
        """The memory roofs, peak set first: the ridge is where the slope meets the peak."""
        self.dram, self.noc = dram, noc
        self.ridge = None if self.slope is None else self.peak / self.slope

    @property
    def slope(self):
        """The memory slope's bandwidth (GB/s): the lower of the DRAM's and the NoC's; None for an
        ideal memory without a NoC that binds."""
        return min((b for b in (self.dram, self.noc) if b is not None), default=None)

    @property
    def slope_name(self):
        """Whose bandwidth the slope is: "NoC" or "DRAM"."""
        return "NoC" if self.noc is not None and self.slope == self.noc else "DRAM"


class Point:
    """One point of the roofline figure, x in ops/B and y in Gops/s; line is its line in
    POINTS_CSV. The figure fills in r_pt (marker radius), sweep, the label's text and kind, and
    whether the label must be drawn."""
    __slots__ = ("line", "panel", "kind", "model", "layer", "type", "series", "batch", "x", "y",
                 "r_pt", "label_kind", "text", "mandatory", "sweep")


def load_roofs(path, note):
    """The panels of ROOFS_CSV, in order; raises InputError."""
    roofs = []
    seen = {}
    for line, r in read_csv(path, ROOF_COLUMNS):
        roof = Roof()
        roof.panel = r["panel"].strip()
        if not roof.panel:
            raise InputError(f"{path}:{line}: panel: empty")
        if roof.panel in seen:
            raise InputError(f"{path}:{line}: panel {roof.panel!r} repeated (first at line {seen[roof.panel]})")
        seen[roof.panel] = line
        roof.accelerator = r["accelerator"].strip()
        bandwidths = {}
        for col in ("peak_gops", "dram_gbps", "noc_gbps"):
            v = parse_number(path, line, col, r.get(col) or "", optional=col != "peak_gops")
            if v is not None and not (math.isfinite(v) and v > 0):
                raise InputError(f"{path}:{line}: {col}: {r[col].strip()!r} is not a positive number")
            bandwidths[col] = v
        roof.peak = bandwidths["peak_gops"]
        ridge = parse_number(path, line, "ridge_ops_per_byte", r["ridge_ops_per_byte"], optional=True)
        if ridge is not None and not (math.isfinite(ridge) and ridge > 0):
            raise InputError(f"{path}:{line}: ridge_ops_per_byte: {r['ridge_ops_per_byte'].strip()!r} "
                             "is not a positive number")
        roof.set_memory(bandwidths["dram_gbps"], bandwidths["noc_gbps"])
        if roof.slope is None:
            if ridge is not None:
                raise InputError(f"{path}:{line}: ridge_ops_per_byte: {ridge:g} without a dram_gbps "
                                 "(an empty dram_gbps means no DRAM roof, so no ridge)")
        elif ridge is not None and abs(ridge - roof.ridge) > 0.01 * roof.ridge:
            note(f"{path}:{line}: ridge_ops_per_byte {ridge:g} differs from peak_gops/"
                 f"{roof.slope_name.lower()}_gbps = {roof.ridge:g}; "
                 f"drawing the ridge at {roof.ridge:g}")
        sram = parse_number(path, line, "sram_gops", r["sram_gops"], optional=True)
        if sram is not None and not (math.isfinite(sram) and sram > 0):
            raise InputError(f"{path}:{line}: sram_gops: {r['sram_gops'].strip()!r} is not a positive number")
        roof.sram = sram
        roofs.append(roof)
    if not roofs:
        raise InputError(f"{path}:2: no panel rows")
    return roofs


def load_points(path, panels, note):
    """The drawable points of POINTS_CSV, whose panels must be in the set panels; raises
    InputError."""
    points = []
    skipped = 0
    for line, r in read_csv(path, POINT_COLUMNS):
        p = Point()
        p.line = line
        p.panel = r["panel"].strip()
        if p.panel not in panels:
            raise InputError(f"{path}:{line}: panel {p.panel!r} is not in the roofs file")
        p.kind = r["kind"].strip()
        if p.kind not in ("network", "layer"):
            raise InputError(f"{path}:{line}: kind: {p.kind!r}, expected network or layer")
        p.model = r["model"].strip()
        p.layer = r["layer"].strip()
        p.type = r["type"].strip() or ("network" if p.kind == "network" else "other")
        p.series = r["series"].strip()
        b = parse_number(path, line, "batch", r["batch"], optional=True)
        if b is not None and not (math.isfinite(b) and b >= 1 and b == int(b)):
            raise InputError(f"{path}:{line}: batch: {r['batch'].strip()!r} is not a positive integer")
        p.batch = None if b is None else int(b)
        x = parse_number(path, line, "ops_per_byte", r["ops_per_byte"], optional=True)
        y = parse_number(path, line, "gops", r["gops"], optional=True)
        parse_number(path, line, "efficiency", r["efficiency"], optional=True)
        if x is None or y is None or not (math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0):
            skipped += 1
            continue
        p.x, p.y = x, y
        p.sweep = None
        p.text = None
        p.mandatory = False
        p.label_kind = None
        points.append(p)
    if skipped:
        note(f"{path}: skipped {skipped} point{'s' if skipped != 1 else ''} with an empty, zero or "
             "non-finite ops_per_byte or gops")
    return points


# --------------------------------------------------------------------------------------------
# The energy figures

def batch_of(path, line, text):
    """The batch column of the energy files: a positive integer; raises InputError."""
    return positive_batch(f"{path}:{line}", parse_number(path, line, "batch", text), repr(text))


def positive_batch(where, value, shown):
    """value as an int, which must be a positive integer (shown: it as the input gave it); raises
    InputError naming `where`."""
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise InputError(f"{where}: batch: expected a positive integer, got {shown}")
    return int(value)


# The panels of the energy figures, from the rows of the CSV files (load_layers, load_networks) or
# of a trace's DataFrames (reusesim.charts): one conversion for both, each row named by `where`
# (FILE:LINE, or a DataFrame's row) in its errors.

def layer_panels(rows):
    """[(where, panel, kind, model, batch, layer, {energy column: uJ per sample or None})] as
    [(title, [(bar label, {energy column: uJ})])]: a panel per (variant, network, batch) with a
    bar per layer, and per (variant, picked layer) with a bar per batch, in first-seen order. An
    empty dram_uj is an ideal memory (0); raises InputError."""
    panels = {}
    for where, panel, kind, model, batch, layer, given in rows:
        parts = {}
        for column in ENERGY_COLUMNS:
            value = given[column]
            if value is None and column != "dram_uj":
                raise InputError(f"{where}: {column}: empty value, expected a number")
            parts[column] = value or 0.0
        if any(v < 0 or not math.isfinite(v) for v in parts.values()):
            raise InputError(f"{where}: energies must be finite and not negative")
        if kind == "network":
            title, bar = f"{model}, batch {batch} on {panel}", layer
        elif kind == "layer":
            title, bar = f"{model}/{layer} on {panel}", f"b{batch}"
        else:
            raise InputError(f"{where}: kind: expected network or layer, got {kind!r}")
        panels.setdefault(title, []).append((bar, parts))
    return list(panels.items())


def network_point(where, panel, sweep, model, batch, latency, energy):
    """One network of the design-space figure as {panel, sweep, model, batch, latency (s),
    energy (uJ per sample)}; raises InputError."""
    if not (latency > 0 and energy > 0 and math.isfinite(latency) and math.isfinite(energy)):
        raise InputError(f"{where}: latency_s and energy_uj must be positive")
    return dict(panel=panel, sweep=sweep, model=model, batch=batch, latency=latency, energy=energy)


def load_layers(path):
    """LAYERS_CSV as layer_panels; raises InputError."""
    return layer_panels(
        (f"{path}:{line}", row["panel"], row["kind"], row["model"], batch_of(path, line, row["batch"]), row["layer"],
         {c: parse_number(path, line, c, row[c], optional=True) for c in ENERGY_COLUMNS})
        for line, row in read_csv(path, LAYER_COLUMNS))


def load_networks(path):
    """NETWORKS_CSV as [network_point]; raises InputError."""
    return [network_point(f"{path}:{line}", row["panel"], row["sweep"], row["model"],
                          batch_of(path, line, row["batch"]), parse_number(path, line, "latency_s", row["latency_s"]),
                          parse_number(path, line, "energy_uj", row["energy_uj"]))
            for line, row in read_csv(path, NETWORK_COLUMNS)]


def load_tokens(path):
    """TOKENS_CSV as [{panel, model, phase, length (int, or None: the model's), batch, uj (per
    token)}]; raises InputError."""
    rows = []
    for line, row in read_csv(path, TOKEN_COLUMNS):
        if row["phase"] not in ("decode", "prefill"):
            raise InputError(f"{path}:{line}: phase: expected decode or prefill, got {row['phase']!r}")
        length = parse_number(path, line, "length", row["length"], optional=True)
        uj = parse_number(path, line, "uj_per_token", row["uj_per_token"])
        if not (uj > 0 and math.isfinite(uj)):
            raise InputError(f"{path}:{line}: uj_per_token must be positive")
        rows.append(dict(panel=row["panel"], model=row["model"], phase=row["phase"],
                         length=None if length is None else int(length), batch=batch_of(path, line, row["batch"]),
                         uj=uj))
    return rows


def load_scaling(path):
    """SCALING_CSV as [{panel, line, chips (int), throughput, unit}], every panel's rows of one unit
    (tokens/s or samples/s); raises InputError."""
    rows = []
    units = {}
    for line, row in read_csv(path, SCALING_COLUMNS):
        chips = parse_number(path, line, "chips", row["chips"])
        if not (math.isfinite(chips) and chips >= 1 and chips == int(chips)):
            raise InputError(f"{path}:{line}: chips: expected a positive integer, got {row['chips']!r}")
        throughput = parse_number(path, line, "throughput", row["throughput"])
        if not (throughput > 0 and math.isfinite(throughput)):
            raise InputError(f"{path}:{line}: throughput must be positive")
        if row["unit"] not in ("tokens/s", "samples/s"):
            raise InputError(f"{path}:{line}: unit: expected tokens/s or samples/s, got {row['unit']!r}")
        if units.setdefault(row["panel"], row["unit"]) != row["unit"]:
            raise InputError(f"{path}:{line}: panel {row['panel']!r} has rows in {units[row['panel']]} and {row['unit']}")
        rows.append(dict(panel=row["panel"], line=row["line"], chips=int(chips), throughput=throughput, unit=row["unit"]))
    return rows
