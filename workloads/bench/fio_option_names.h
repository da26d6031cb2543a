// The long option table of fio 3.33's command line, as its parse_cmd_line hands it to getopt_long_only:
// fio's own options (init.c l_opts, with their short letters), then every job option and alias
// (options.c, options_to_lopts: fio_options in table order, profile options included), then -- once
// --ioengine=libaio is parsed -- the libaio engine's options. The order is the installed fio 3.33's
// ("fio --=1" lists the whole table); the option types are fio-3.33's options.c, profiles/ and
// engines/libaio.c. With getopt_long_only any two names a prefix matches are ambiguous, so the simulated
// fio needs every name -- those warmsched does not model too -- to take abbreviations as fio does.
#pragma once

#include <cstddef>

namespace warmsched::workloads {

enum class fio_arg { none, required, optional };

struct fio_command_option {
    const char* name;
    char short_name;
    fio_arg arg;
};

// init.c's l_opts (Linux, zlib: inflate-log; no server-internal).
extern const fio_command_option fio_command_options[];
extern const std::size_t fio_command_option_count;
// options.c's job options and aliases, in l_opts order after fio_command_options.
extern const char* const fio_job_option_names[];
extern const std::size_t fio_job_option_count;
// The libaio engine's options (engines/libaio.c), which fio appends once --ioengine=libaio is parsed.
extern const char* const fio_libaio_option_names[];
extern const std::size_t fio_libaio_option_count;
// The job and engine options of type FIO_OPT_STR_SET, which add_to_lopt gives an optional value
// (getopt's optional_argument: attached only); every other one requires a value.
extern const char* const fio_set_option_names[];
extern const std::size_t fio_set_option_count;

} // namespace warmsched::workloads
