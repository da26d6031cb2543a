// The data files of a run's timeline plots, written into DIR/plots/ after a run with --plot (gnuplot
// reads them; `warmsched plot DIR` draws them again):
//   timeline.dat    one line per stint of a task on a CPU: cpu, start and end (ms), pid, tgid, hue
//                   (0..1 from the tgid, which the script colours with hsv2rgb: one colour per process,
//                   idle left out)
//   migrations.dat  migrations per time bin (100 bins over the run) by distance: SMT sibling, same LLC,
//                   other LLC, other node (as the cost-of-migration report classes them)
// Both are whitespace-separated columns with a header line (gnuplot's `columnheader`).
#pragma once

#include "sim/outputs/sched_timeline.h"

#include <string>

namespace warmsched::sim {

void write_timeline_data(const std::string& dir, const sched_timeline& t);

} // namespace warmsched::sim
