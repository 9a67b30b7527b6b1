// Fuzz target: ONNX models (`reusesim import onnx`, docs/import.md). A file that imports is written
// as a model file and loaded back as `reusesim` loads it (the importer's invariant: the file holds
// the network imported, layer for layer), and analysed as `reusesim analyze` does. Each input is
// imported twice: with every dimension a number, and with the dynamic dimension "batch" as the batch.

#include "fuzz_support.h"
#include "import/import_error.h"
#include "import/model_writer.h"
#include "import/onnx_import.h"
#include "report/analyze_report.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = fuzz::input_text(data, size);
  for (const char* batch_dim : {"", "batch"}) {
    fuzz::accept_bad_input([&] {
      try {
        const import::ImportedModel model = import::import_onnx(bytes, "model.onnx", import::OnnxOptions{batch_dim});
        const workload::Network network = import::load_back(model, import::model_yaml(model), "model.yaml");
        report::render_analysis(network, {1, 100.0}, report::Format::table);
      } catch (const import::ImportError&) {
      }
    });
  }
  return 0;
}
