"""The figure of traces/precision.yaml (scripts/plot_precision.py; docs/validation.md, "Number
formats"): Llama-2-7B decode steps at W16A16, W8A16, W4A16 and W8A8 and ResNet-50 dense against
2:4 sparse, per machine and batch size.

It reads the trace's LAYERS_CSV (layers.csv of `reusesim trace`), by column name:
  job,accelerator,model,batch,layer,time_s
    model  llama2_7b_<format> (one decoder block: its `layers/...` rows count LLAMA_BLOCKS times,
           the embedding, final norm and lm_head once) or resnet50 / resnet50_2to4; others are
           left out (a note says which)
    time_s the layer's time in seconds; a job's time is the sum of its layers'
Bad input raises InputError with `FILE:LINE: ...`.
"""

import matplotlib.pyplot as plt

from .csv_input import InputError, parse_number, read_csv
from .output import write_atomically

LAYER_COLUMNS = ["job", "accelerator", "model", "batch", "layer", "time_s"]

# Llama-2-7B's decoder layers (models/llama2_7b.yaml): the trace runs one, as docs/transformers.md.
LLAMA_BLOCKS = 32
LLAMA_PREFIX = "llama2_7b_"
BLOCK_PREFIX = "layers/"
# The formats in the order drawn: weights and activations bits (W16A16 is the models' fp16).
FORMATS = ["w16a16", "w8a16", "w4a16", "w8a8"]
FORMAT_COLORS = {"w16a16": "#4c72b0", "w8a16": "#dd8452", "w4a16": "#55a868", "w8a8": "#c44e52"}
DENSE, SPARSE = "resnet50", "resnet50_2to4"


class Step:
    """One job's time: the accelerator, the model's format (a Llama) or its name (ResNet-50), the
    batch and the seconds of a whole step."""
    __slots__ = ("accelerator", "kind", "batch", "seconds")

    def __init__(self, accelerator, kind, batch, seconds):
        self.accelerator, self.kind, self.batch, self.seconds = accelerator, kind, batch, seconds


def load_steps(path, note):
    """The Llama and ResNet-50 jobs of LAYERS_CSV as Steps, in the order of their first rows."""
    jobs = {}
    skipped = set()
    for line, row in read_csv(path, LAYER_COLUMNS):
        model = row["model"]
        if model.startswith(LLAMA_PREFIX) and model[len(LLAMA_PREFIX):] in FORMATS:
            kind = model[len(LLAMA_PREFIX):]
        elif model in (DENSE, SPARSE):
            kind = model
        else:
            skipped.add(model)
            continue
        seconds = parse_number(path, line, "time_s", row["time_s"])
        batch = parse_number(path, line, "batch", row["batch"])
        if batch < 1 or batch != int(batch):
            raise InputError(f"{path}:{line}: batch: expected a positive integer, got {row['batch']!r}")
        step = jobs.setdefault(row["job"], Step(row["accelerator"], kind, int(batch), 0.0))
        if kind in FORMATS and row["layer"].startswith(BLOCK_PREFIX):
            seconds *= LLAMA_BLOCKS
        step.seconds += seconds
    if skipped:
        note(f"{path}: models left out (neither {LLAMA_PREFIX}<format> nor {DENSE}/{SPARSE}): "
             + ", ".join(sorted(skipped)))
    if not jobs:
        raise InputError(f"{path}: no Llama-2-7B or ResNet-50 job to draw")
    return list(jobs.values())


def table(steps):
    """Rows (accelerator, model, batch, step_ms, speedup) of what the figure draws: each Llama step
    against W16A16 on the same machine and batch, each ResNet-50 against the dense one; an empty
    speed-up where that is missing."""
    base = {}
    for s in steps:
        if s.kind in ("w16a16", DENSE):
            base[(s.accelerator, s.batch, s.kind in FORMATS)] = s.seconds
    rows = []
    order = FORMATS + [DENSE, SPARSE]
    for s in sorted(steps, key=lambda s: (s.kind not in FORMATS, s.accelerator, s.batch, order.index(s.kind))):
        reference = base.get((s.accelerator, s.batch, s.kind in FORMATS))
        model = LLAMA_PREFIX + s.kind if s.kind in FORMATS else s.kind
        speedup = reference / s.seconds if reference and s.seconds > 0 else None
        rows.append((s.accelerator, model, s.batch, s.seconds * 1e3, speedup))
    return rows


def write_table(rows, path):
    """PATH (OUT_PREFIX.csv): what the figure plots, written atomically; raises OutputError."""
    lines = ["accelerator,model,batch,step_ms,speedup"]
    for accelerator, model, batch, ms, speedup in rows:
        lines.append(f"{accelerator},{model},{batch},{ms:.6f}," + ("" if speedup is None else f"{speedup:.4f}"))

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    write_atomically(path, write)


def build_figure(steps, title):
    """Three panels: Llama-2-7B decode step time per format, the speed-up over W16A16, and
    ResNet-50's 2:4 speed-up, each grouped by machine and batch."""
    rows = table(steps)
    llama = [r for r in rows if r[1].startswith(LLAMA_PREFIX)]
    resnet = [r for r in rows if not r[1].startswith(LLAMA_PREFIX)]
    groups = sorted({(r[0], r[2]) for r in llama})
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), gridspec_kw={"width_ratios": [3, 3, 2]})
    width = 0.8 / len(FORMATS)
    for fi, fmt in enumerate(FORMATS):
        ms, up = {}, {}
        for accelerator, model, batch, step_ms, speedup in llama:
            if model == LLAMA_PREFIX + fmt:
                ms[(accelerator, batch)] = step_ms
                up[(accelerator, batch)] = speedup
        xs = [gi + (fi - (len(FORMATS) - 1) / 2) * width for gi, g in enumerate(groups) if g in ms]
        label = fmt.upper()
        axes[0].bar(xs, [ms[g] for g in groups if g in ms], width, label=label, color=FORMAT_COLORS[fmt])
        ups = [(x, up[g]) for x, g in zip(xs, [g for g in groups if g in ms]) if up[g] is not None]
        axes[1].bar([x for x, _ in ups], [u for _, u in ups], width, label=label, color=FORMAT_COLORS[fmt])
        for x, u in ups:
            axes[1].annotate(f"{u:.2f}", (x, u), ha="center", va="bottom", fontsize=7)
    names = [f"{a}\nbatch {b}" for a, b in groups]
    axes[0].set_title(f"Llama-2-7B decode step (context 128, {LLAMA_BLOCKS} blocks)")
    axes[0].set_ylabel("ms per step (one token a sample)")
    axes[1].set_title("speed-up over W16A16")
    axes[1].axhline(1.0, color="0.5", linewidth=0.8)
    for ax in axes[:2]:
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(names)
        ax.legend(fontsize=8)
    sparse = [r for r in resnet if r[1] == SPARSE and r[4] is not None]
    axes[2].bar(range(len(sparse)), [r[4] for r in sparse], 0.6, color="#8172b2")
    for i, r in enumerate(sparse):
        axes[2].annotate(f"{r[4]:.2f}", (i, r[4]), ha="center", va="bottom", fontsize=8)
    axes[2].set_xticks(range(len(sparse)))
    axes[2].set_xticklabels([f"{r[0]}\nbatch {r[2]}" for r in sparse])
    axes[2].axhline(1.0, color="0.5", linewidth=0.8)
    axes[2].set_title("ResNet-50: 2:4 sparse over dense")
    axes[2].set_ylabel("speed-up")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
