// Running another program from the twin: QEMU, the initramfs packer, tar, and the model's own runs
// (`warmsched run` in a child process: SystemC elaborates one design per process, and the twin may run
// the model twice, plain and dilated). No shell: argv is passed as it is.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace warmsched::twin {

// Starts argv (looked up on PATH) with stdin from /dev/null and stdout and stderr into `log_file`.
// Throws twin_failure if it cannot start.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log_file);
// Runs argv to its end; returns its exit status (128 + the signal if one ended it).
int run_to_end(const std::vector<std::string>& argv, const std::string& log_file);
// The file's last non-blank line (for one-line error messages).
std::string last_line_of(const std::string& path);
// This program (/proc/self/exe).
std::string self_exe();

} // namespace warmsched::twin
