#pragma once
// The arithmetic-intensity (roofline) figure of a trace's results: x = ops per DRAM byte,
// y = achieved Gops/s (1 MAC = 2 ops) over the time the row's DRAM bytes moved in, one panel per
// accelerator variant with its compute, DRAM and (where they bind) NoC and SRAM roofs. This side gathers
// the points and roofs into two CSV files; scripts/plot_figure.py (matplotlib) draws them as PNG
// and SVG.

#include <string>

#include "trace/trace_plan.h"

namespace reusesim::trace {

struct FigureTables {
  std::string points_csv;  // panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency
  // panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops, and noc_gbps when a
  // panel's network-on-chip binds (empty on the panels where it does not)
  std::string roofs_csv;
  // Energy (jobs whose accelerator names a technology, docs/energy-model.md), per sample: every
  // layer (kind network: of a whole network; layer: picked by name or type), and every whole
  // network's TOTAL. Header only when no job has energy.
  std::string energy_layers_csv;    // panel,kind,model,batch,layer,dram_uj,sram_uj,array_uj,vector_uj,dma_uj,static_uj
  std::string energy_networks_csv;  // panel,sweep,model,batch,latency_s,energy_uj,ops
  // Energy per token: the TOTAL of every job of a transformer's phase with energy (what it ran of
  // the model: a picked part's tokens cost its layers' energy). length: the decode step's context
  // or the prefill's sequence (empty: the model's).
  std::string energy_tokens_csv;  // panel,model,phase,length,batch,uj_per_token,tokens_per_joule
  // Scaling (traces over systems): every finished system job's throughput, tokens/s of a decode
  // step and samples/s otherwise. panel: the workload and batch; line: the system variant without
  // its chip count, and the plan. Header only when no system job finished.
  std::string scaling_csv;  // panel,line,chips,throughput,unit
};

// From the finished jobs in `results_dir` (jobs/<id>/results.json), in plan order. One point per
// network (whole-model jobs) and per layer with MACs; layers without MACs (pooling, activations)
// have no ops to place. Networks, and layers a trace entry picks by name or type, carry a series
// name (the model, or model/layer): over several batch sizes the figure joins and labels them.
// The layers of whole networks stay plain points, or a ResNet would bury the figure in labels.
// A layer run twice at one batch (fc6 in AlexNet and on its own) is plotted once, with the first
// job's values and the series of whichever job named it.
FigureTables figure_tables(const TracePlan& plan, const std::string& results_dir);

// Reads results_dir/trace.json, writes figure_points.csv and figure_roofs.csv, and runs the plot
// script for figure.png and figure.svg; with energy in the results, also figure_energy_layers.csv
// and figure_energy_networks.csv, and scripts/plot_energy.py for figure_energy.png/.svg (the
// breakdown per layer) and, when the trace sweeps hardware, figure_design.png/.svg (energy per
// inference against latency, Pareto-optimal variants marked); with systems, figure_scaling.csv and
// scripts/plot_scaling.py for figure_scaling.png/.svg (throughput against chips). Throws std::runtime_error saying
// what is missing.
void draw_figure(const std::string& results_dir);

}  // namespace reusesim::trace
