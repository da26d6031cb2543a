// Running gnuplot (Debian's gnuplot-nox, with the pngcairo and svg terminals) on a script the plot
// writers generated. Plots are drawn by gnuplot, never by our own drawing code.
#pragma once

#include <string>

namespace warmsched::sim {

// The gnuplot executable found on PATH; empty when there is none.
std::string find_gnuplot();

// Runs `gnuplot script` in `dir` (the script names its outputs relative to it). Throws config_error
// naming gnuplot when it is missing (install gnuplot-nox) or when it fails (its stderr follows).
void run_gnuplot(const std::string& dir, const std::string& script);

// Writes dir/NAME.gp, which draws `body` (gnuplot commands) once as NAME.png (pngcairo) and once as
// NAME.svg, at width x height pixels; run it with run_gnuplot(dir, NAME.gp).
void write_gnuplot_script(const std::string& dir, const std::string& name, const std::string& body,
                          int width = 1200, int height = 600);

// One colour per category in every figure (a colour-blind-safe palette, Paul Tol's "bright"): the
// migration distances ("SMT sibling", "same LLC", "other LLC", "other node") and where a miss was served
// ("own L2", "own L3", "other L3", "DRAM"), so that "same LLC" is the same green in every panel. As
// gnuplot wants it after `lc rgb`: "'#228833'"; another name gets gnuplot's next default colour ("").
std::string category_colour(const std::string& category);

// A gnuplot string literal: single quotes, with ' doubled.
std::string gnuplot_quoted(const std::string& s);

} // namespace warmsched::sim
