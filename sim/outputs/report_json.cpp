// report.json; see report_json.h.
#include "sim/outputs/report_json.h"

#include "sim/compare/run_metrics.h"

#include <nlohmann/json.hpp>

namespace warmsched::sim {

void write_report_json(std::ostream& out, const std::vector<workload_output>& workloads,
                       const nlohmann::ordered_json& run, const nlohmann::ordered_json& policy) {
    using json = nlohmann::ordered_json;
    json list = json::array();
    std::string all;
    for (const auto& w : workloads) {
        json metrics = json::object();
        for (const auto& [name, value] : parse_report_metrics(w.output)) metrics[name] = value;
        list.push_back({{"command", w.command}, {"output", w.output}, {"metrics", metrics}});
        all += w.output;
    }
    // Over the whole report, as compare reads it: a metric of a second workload of one tool gets "#2".
    json metrics = json::object();
    for (const auto& [name, value] : parse_report_metrics(all)) metrics[name] = value;
    json doc;
    if (!run.is_null()) doc["run"] = run;
    doc["workloads"] = list;
    doc["metrics"] = metrics;
    if (!policy.is_null()) doc["policy"] = policy;
    out << doc.dump(2) << "\n";
}

} // namespace warmsched::sim
