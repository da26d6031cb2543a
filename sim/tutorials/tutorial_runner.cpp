// Running a tutorial's steps, analysis and figures; see tutorial_runner.h.
#include "sim/tutorials/tutorial_runner.h"
#include "base/files/output_file.h"

#include "platforms/config/config_error.h"
#include "sim/child_process.h"
#include "sim/experiment.h"
#include "sim/file_text.h"
#include "sim/plots/gnuplot.h"
#include "sim/results_dir.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace warmsched::sim::tutorials {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& why) {
    throw config::config_error(std::vector<std::string>{"tutorial: " + why});
}

// The step as the user would type it: `run` steps get --out runs/STEP right after `run`.
std::vector<std::string> step_argv(const tutorial_step& s, const std::string& runs_dir) {
    std::vector<std::string> argv{"warmsched"};
    for (std::size_t i = 0; i < s.args.size(); ++i) {
        argv.push_back(s.args[i]);
        if (i == 0 && s.args[0] == "run") {
            argv.push_back("--out");
            argv.push_back((fs::path(runs_dir) / s.name).string());
        }
    }
    return argv;
}

std::string shell_word(const std::string& w) {
    bool plain = !w.empty();
    for (char c : w)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string("_./:=,@%+-").find(c) != std::string::npos))
            plain = false;
    if (plain) return w;
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string command_line(const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& w : argv) s += (s.empty() ? "" : " ") + shell_word(w);
    return s;
}

struct running_step {
    std::size_t index = 0;
    std::chrono::steady_clock::time_point started;
};

// Runs every step, up to `jobs` at once. Returns 0, the first failed step's exit status, or 130 after a
// stop signal (the running steps are ended first).
int run_steps(const std::vector<tutorial_step>& steps, const std::string& dir, unsigned jobs, std::ostream& out) {
    const std::string binary = self_binary();
    const fs::path runs = fs::path(dir) / "runs";
    const stop_signals signals;
    const pid_t parent = ::getpid();
    std::map<pid_t, running_step> running;
    std::size_t next = 0, finished = 0;
    int failed = 0;
    auto start = [&](std::size_t i) {
        const auto argv_words = step_argv(steps[i], runs.string());
        const std::string log = (runs / (steps[i].name + ".txt")).string();
        const std::string err = (runs / (steps[i].name + ".err")).string();
        out.flush();
        std::cerr.flush();
        const pid_t pid = ::fork();
        if (pid < 0) fail("fork failed");
        if (pid == 0) {
            become_child(parent);
            const int o = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (o < 0 || e < 0) ::_exit(2);
            ::dup2(o, STDOUT_FILENO);
            ::dup2(e, STDERR_FILENO);
            ::close(o);
            ::close(e);
            std::vector<char*> argv;
            std::vector<std::string> words = argv_words;
            for (auto& w : words) argv.push_back(w.data());
            argv.push_back(nullptr);
            ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
            ::execv(binary.c_str(), argv.data());
            ::_exit(127);
        }
        running[pid] = {i, std::chrono::steady_clock::now()};
    };
    while (finished < steps.size() && !failed) {
        while (!signals.caught() && next < steps.size() && running.size() < jobs) start(next++);
        if (signals.caught()) break;
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            fail("lost track of the steps' processes");
        }
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        const running_step r = it->second;
        running.erase(it);
        ++finished;
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        const tutorial_step& s = steps[r.index];
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
        const fs::path err = runs / (s.name + ".err");
        const std::string err_text = file_text(err);
        out << "  [" << finished << "/" << steps.size() << "] " << s.name << " (" << fixed(secs, 1) << " s): "
            << command_line(step_argv(s, "runs")) << "\n";
        if (rc != 0) {
            std::cerr << "error: tutorial: step " << s.name << " failed (exit " << rc << "): "
                      << command_line(step_argv(s, "runs")) << "\n"
                      << err_text;
            failed = rc;
        } else if (err_text.empty()) {
            std::error_code ec;
            fs::remove(err, ec);
        }
    }
    if (signals.caught() || failed) {
        for (const auto& [pid, r] : running) ::kill(pid, SIGTERM);
        for (const auto& [pid, r] : running) {
            int st = 0;
            while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
        }
        if (signals.caught()) {
            std::cerr << "warmsched: tutorial stopped by signal " << signals.caught() << "; nothing was kept\n";
            return 130;
        }
    }
    return failed;
}

void write_report(const tutorial& t, const tutorial_run_options& o, const std::vector<tutorial_step>& steps,
                  const tutorial_outcome& r, const std::string& dir) {
    base::output_file md((fs::path(dir) / "report.md").string());
    md << "# Tutorial: " << t.title() << "\n\n" << t.teaches() << "\n\n"
       << "Generated by `warmsched tutorial " << t.name() << (o.quick ? " --quick" : "")
       << "`; every number below was measured by the steps listed at the end.\n\n";
    for (const auto& f : r.figures) md << "![" << f.name << "](plots/" << f.name << ".png)\n\n";
    md << r.report << "\n";
    md << "## Check\n\n" << r.check.claim << ": " << r.check.numbers << " — "
       << (r.check.holds ? "**seen**" : "**NOT seen** (a change to the model broke what this tutorial teaches)")
       << ".\n\n## Steps\n\nEach step is a command you can run yourself (from the results directory):\n\n```\n";
    for (const auto& s : steps) md << command_line(step_argv(s, "runs")) << "\n";
    md << "```\n\n## Try this next\n\n```\n";
    for (const auto& c : t.try_next()) md << c << "\n";
    md << "```\n";
    md.close();

    nlohmann::json j;
    j["tutorial"] = t.name();
    j["title"] = t.title();
    j["quick"] = o.quick;
    j["steps"] = nlohmann::json::array();
    for (const auto& s : steps) j["steps"].push_back({{"name", s.name}, {"command", command_line(step_argv(s, "runs"))}});
    j["figures"] = nlohmann::json::array();
    for (const auto& f : r.figures) j["figures"].push_back("plots/" + f.name + ".png");
    j["data"] = r.figures_data;
    j["check"] = {{"claim", r.check.claim}, {"numbers", r.check.numbers}, {"holds", r.check.holds}};
    base::write_file((fs::path(dir) / "tutorial.json").string(), j.dump(2) + "\n");
}

} // namespace

void list_tutorials(std::ostream& out) {
    out << "Tutorials (warmsched tutorial NAME runs one; docs/tutorials/NAME.md is its page):\n";
    for (const tutorial* t : all_tutorials()) {
        out << "  " << t->name();
        for (std::size_t i = t->name().size(); i < 20; ++i) out << ' ';
        out << t->title() << "\n  " << std::string(20, ' ') << t->teaches() << "\n";
    }
}

int run_tutorial(const tutorial& t, const tutorial_run_options& o, std::ostream& out) {
    if (find_gnuplot().empty())
        fail("gnuplot not found on PATH: the tutorials draw their figures with it (Debian: apt-get install gnuplot-nox)");
    const std::string final_dir = o.out.empty() ? default_results_dir("tutorial-" + t.name() + "-") : o.out;
    results_dir rd(final_dir, o.replace);
    const std::string dir = rd.writing();
    base::make_directories((fs::path(dir) / "runs").string());
    base::make_directories((fs::path(dir) / "plots").string());
    tutorial_options to;
    to.quick = o.quick;
    const std::vector<tutorial_step> steps = t.steps(to);
    out << "tutorial " << t.name() << ": " << t.title() << (o.quick ? " (--quick)" : "") << "\n  " << t.teaches()
        << "\n  " << steps.size() << " steps, up to " << o.jobs << " at a time, into " << final_dir << "\n";
    const int rc = run_steps(steps, dir, o.jobs, out);
    if (rc != 0) return rc == 130 ? 130 : 1; // the partial directory goes with rd

    const tutorial_context ctx(dir);
    const tutorial_outcome r = t.analyse(ctx, to);
    const std::string plots = (fs::path(dir) / "plots").string();
    for (const auto& f : r.figures) {
        write_gnuplot_script(plots, f.name, f.script, f.width, f.height);
        run_gnuplot(plots, f.name + ".gp");
    }
    write_report(t, o, steps, r, dir);
    rd.commit();

    out << "\n" << r.report << "\n";
    out << "What to look at:\n";
    for (const auto& l : r.look_at) out << "  - " << l << "\n";
    out << "\nCheck: " << r.check.claim << ": " << r.check.numbers << " -- " << (r.check.holds ? "seen" : "NOT SEEN")
        << "\n\nFigures:";
    for (const auto& f : r.figures)
        out << " " << (fs::path(final_dir) / "plots" / (f.name + ".png")).string() << " (and .svg)";
    out << "\nReport: " << (fs::path(final_dir) / "report.md").string()
        << "\nPage: docs/tutorials/" << t.name() << ".md\n";
    if (!r.check.holds) {
        std::cerr << "error: tutorial " << t.name() << ": the effect it teaches did not appear (" << r.check.claim
                  << ": " << r.check.numbers << "); the results are in " << final_dir << "\n";
        return 1;
    }
    return 0;
}

} // namespace warmsched::sim::tutorials
