// A tutorial of `warmsched tutorial NAME`: one phenomenon of architecture-aware scheduling, shown end to end
// on a shipped platform. A tutorial is two things, kept apart so that a user can rerun any part by hand:
//   steps()    the warmsched command lines it runs (probes and runs), exactly as a user would type them;
//              the runner (tutorial_runner.h) starts each as its own process, since SystemC elaborates one
//              design per process, gives each `run` step --out DIR/runs/STEP, and keeps each step's
//              standard output in DIR/runs/STEP.txt;
//   analyse()  reads what the steps wrote (probe CSV, stats.json, migration_report.json, report.txt),
//              writes the data files of its figures, and returns the figures (gnuplot bodies, drawn as PNG
//              and SVG), the report's text, the figures' numbers and the one check that the effect it
//              teaches is there.
// Nothing here computes a result: every number comes out of the model's own outputs.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace warmsched::sim::tutorials {

struct tutorial_options {
    bool quick = false; // --quick: fewer and shorter steps, the same figures (the tests run this)
};

struct tutorial_step {
    std::string name;              // [a-z0-9-]+; DIR/runs/NAME(.txt)
    std::vector<std::string> args; // after `warmsched`: {"probe", "latency", ...} or {"run", ...}
};

struct tutorial_figure {
    std::string name;   // plots/NAME.{gp,png,svg}
    std::string script; // the gnuplot commands between the terminal and the output settings
    int width = 1000, height = 600;
};

// The effect the tutorial teaches, as measured: "refill grows with distance" and the numbers that say so.
struct tutorial_check {
    std::string claim;
    std::string numbers;
    bool holds = false;
};

struct tutorial_outcome {
    std::vector<tutorial_figure> figures;
    std::string report;           // markdown: the tables and what they show (report.md's middle)
    std::vector<std::string> look_at; // printed after the run: what to look at first
    nlohmann::json figures_data;  // tutorial.json's "data": the numbers behind the figures
    tutorial_check check;
};

// What analyse() reads and writes.
class tutorial_context {
public:
    explicit tutorial_context(std::string dir) : dir_(std::move(dir)) {}
    const std::string& dir() const { return dir_; }
    std::string step_dir(const std::string& step) const;    // DIR/runs/STEP (a run's results)
    std::string step_output(const std::string& step) const; // DIR/runs/STEP.txt's text
    std::string step_file(const std::string& step, const std::string& file) const; // DIR/runs/STEP/FILE's text
    // DIR/runs/STEP/FILE parsed, once per file: the analyses read stats.json for many statistics.
    const nlohmann::json& step_json(const std::string& step, const std::string& file) const;
    // A probe's --csv output: the header's columns, then one map per row. Throws when a column is missing.
    std::vector<std::vector<std::string>> step_csv(const std::string& step, const std::vector<std::string>& columns) const;
    // DIR/runs/STEP/stats.json's statistics (name -> value); a missing name throws naming it.
    double stat(const std::string& step, const std::string& name) const;
    // The sum over the statistics whose names match `pattern` (an ECMAScript regex, the whole name), e.g.
    // R"(system\.cpu\d+\.accesses::llc)"; 0 when none match.
    double stat_sum(const std::string& step, const std::string& pattern) const;
    // report.json's metric of the step's run ("netperf Trans/s"); throws when the run printed none.
    double metric(const std::string& step, const std::string& name) const;
    void write_data(const std::string& file, const std::string& text) const; // DIR/plots/FILE

private:
    std::string dir_;
    mutable std::map<std::string, nlohmann::json> parsed_; // by "STEP/FILE"
};

class tutorial {
public:
    virtual ~tutorial() = default;
    virtual std::string name() const = 0;    // the command's argument
    virtual std::string title() const = 0;   // "Where a line comes from"
    virtual std::string teaches() const = 0; // one sentence, listed by `warmsched tutorial`
    virtual std::vector<tutorial_step> steps(const tutorial_options& o) const = 0;
    virtual tutorial_outcome analyse(const tutorial_context& c, const tutorial_options& o) const = 0;
    virtual std::vector<std::string> try_next() const = 0; // commands with parameters to change
};

// The tutorials in the order they are taught (tutorial_registry.cpp).
const std::vector<const tutorial*>& all_tutorials();
const tutorial* find_tutorial(const std::string& name);

// Helpers of the analyses.
// configs/tutorials/NAME as an absolute path: the inputs (rt-app JSON, experiment YAML) tutorials run.
std::string tutorial_input(const std::string& name);
[[noreturn]] void analysis_error(const std::string& why); // throws config_error "tutorial: WHY"
std::string fixed(double v, int decimals);
// A step's migration_report.json classes summed by distance ("SMT sibling", "same LLC", "other LLC", ...):
// the migrations and their refill stall. `cause` ("wakeup") keeps the classes of one cause; "" keeps all.
struct distance_tally {
    double migrations = 0, stall_us = 0;
    double stall_per_migration_us() const { return migrations > 0 ? stall_us / migrations : 0; }
};
std::map<std::string, distance_tally> migrations_by_distance(const tutorial_context& c, const std::string& step,
                                                             const std::string& cause = "");

} // namespace warmsched::sim::tutorials
