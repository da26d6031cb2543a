// fio 3.33's command-line option names; see fio_option_names.h.
#include "workloads/bench/fio_option_names.h"

namespace warmsched::workloads {

const fio_command_option fio_command_options[] = {
    {"output", 'o', fio_arg::required},
    {"latency-log", 'l', fio_arg::required},
    {"bandwidth-log", 'b', fio_arg::none},
    {"minimal", 'm', fio_arg::none},
    {"output-format", 'F', fio_arg::required},
    {"append-terse", 'f', fio_arg::optional},
    {"version", 'v', fio_arg::none},
    {"help", 'h', fio_arg::none},
    {"cmdhelp", 'c', fio_arg::optional},
    {"enghelp", 'i', fio_arg::optional},
    {"showcmd", 's', fio_arg::none},
    {"readonly", 'r', fio_arg::none},
    {"eta", 'e', fio_arg::required},
    {"eta-interval", 'O', fio_arg::required},
    {"eta-newline", 'E', fio_arg::required},
    {"debug", 'd', fio_arg::required},
    {"parse-only", 'P', fio_arg::none},
    {"section", 'x', fio_arg::required},
    {"inflate-log", 'X', fio_arg::required},
    {"alloc-size", 'a', fio_arg::required},
    {"profile", 'p', fio_arg::required},
    {"warnings-fatal", 'w', fio_arg::none},
    {"max-jobs", 'j', fio_arg::required},
    {"terse-version", 'V', fio_arg::required},
    {"server", 'S', fio_arg::optional},
    {"daemonize", 'D', fio_arg::required},
    {"client", 'C', fio_arg::required},
    {"remote-config", 'R', fio_arg::required},
    {"cpuclock-test", 'T', fio_arg::none},
    {"crctest", 'G', fio_arg::optional},
    {"memcpytest", 'M', fio_arg::optional},
    {"idle-prof", 'I', fio_arg::required},
    {"status-interval", 'L', fio_arg::required},
    {"trigger-file", 'W', fio_arg::required},
    {"trigger-timeout", 'B', fio_arg::required},
    {"trigger", 'H', fio_arg::required},
    {"trigger-remote", 'J', fio_arg::required},
    {"aux-path", 'K', fio_arg::required},
    {"merge-blktrace-only", 'A', fio_arg::none},
};
const std::size_t fio_command_option_count = sizeof fio_command_options / sizeof fio_command_options[0];

// A table, packed, in fio's order.
// clang-format off
const char* const fio_job_option_names[] = {
    "description", "name", "wait_for", "filename", "directory", "filename_format", "unique_filename",
    "lockfile", "opendir", "rw", "readwrite", "rw_sequencer", "ioengine", "iodepth", "iodepth_batch",
    "iodepth_batch_submit", "iodepth_batch_complete_min", "iodepth_batch_complete",
    "iodepth_batch_complete_max", "iodepth_low", "serialize_overlap", "io_submit_mode", "size", "io_size",
    "io_limit", "fill_device", "fill_fs", "filesize", "file_append", "offset", "fileoffset", "offset_align",
    "offset_increment", "number_ios", "bs", "blocksize", "ba", "blockalign", "bsrange", "blocksize_range",
    "bssplit", "bs_unaligned", "blocksize_unaligned", "bs_is_seq_rand", "randrepeat", "randseed",
    "norandommap", "softrandommap", "random_generator", "random_distribution", "percentage_random",
    "percentage_sequential", "allrandrepeat", "nrfiles", "nr_files", "openfiles", "file_service_type",
    "fallocate", "fadvise_hint", "fsync", "fdatasync", "write_barrier", "sync_file_range", "direct", "atomic",
    "buffered", "overwrite", "loops", "numjobs", "startdelay", "runtime", "timeout", "time_based",
    "verify_only", "ramp_time", "clocksource", "mem", "iomem", "iomem_align", "mem_align", "verify",
    "do_verify", "verifysort", "verifysort_nr", "verify_interval", "verify_offset", "verify_pattern",
    "verify_fatal", "verify_dump", "verify_async", "verify_backlog", "verify_backlog_batch",
    "verify_async_cpus", "experimental_verify", "verify_state_load", "verify_state_save", "trim_percentage",
    "trim_verify_zero", "trim_backlog", "trim_backlog_batch", "write_iolog", "read_iolog",
    "read_iolog_chunked", "replay_no_stall", "replay_redirect", "replay_scale", "replay_align",
    "replay_time_scale", "replay_skip", "merge_blktrace_file", "merge_blktrace_scalars",
    "merge_blktrace_iters", "exec_prerun", "exec_postrun", "ioscheduler", "zonemode", "zonesize",
    "zonecapacity", "zonerange", "zoneskip", "read_beyond_wp", "max_open_zones", "job_max_open_zones",
    "ignore_zone_limits", "zone_reset_threshold", "zone_reset_frequency", "lockmem", "rwmixread",
    "rwmixwrite", "rwmixcycle", "nice", "prio", "prioclass", "thinktime", "thinktime_spin",
    "thinktime_blocks", "thinktime_blocks_type", "thinktime_iotime", "rate", "rate_min", "ratemin",
    "rate_iops", "rate_iops_min", "rate_process", "rate_cycle", "ratecycle", "rate_ignore_thinktime",
    "max_latency", "latency_target", "latency_window", "latency_percentile", "latency_run", "invalidate",
    "sync", "write_hint", "create_serialize", "create_fsync", "create_on_open", "create_only",
    "allow_file_create", "allow_mounted_write", "pre_read", "cpumask", "cpus_allowed", "cpus_allowed_policy",
    "numa_cpu_nodes", "numa_mem_policy", "end_fsync", "fsync_on_close", "unlink", "unlink_each_loop",
    "exitall", "exit_what", "exitall_on_error", "stonewall", "wait_for_previous", "new_group", "thread",
    "per_job_logs", "write_bw_log", "write_lat_log", "write_iops_log", "log_entries", "log_avg_msec",
    "log_hist_msec", "log_hist_coarseness", "write_hist_log", "log_max_value", "log_offset", "log_prio",
    "log_compression", "log_compression_cpus", "log_store_compressed", "log_unix_epoch",
    "log_alternate_epoch", "log_alternate_epoch_clock_id", "block_error_percentiles", "bwavgtime",
    "iopsavgtime", "group_reporting", "stats", "zero_buffers", "refill_buffers", "scramble_buffers",
    "buffer_pattern", "buffer_compress_percentage", "buffer_compress_chunk", "dedupe_percentage",
    "dedupe_global", "dedupe_mode", "dedupe_working_set_percentage", "clat_percentiles", "lat_percentiles",
    "slat_percentiles", "percentile_list", "significant_figures", "disk_util", "gtod_reduce", "disable_lat",
    "disable_clat", "disable_slat", "disable_bw_measurement", "disable_bw", "gtod_cpu",
    "unified_rw_reporting", "continue_on_error", "ignore_error", "error_dump", "profile", "cgroup",
    "cgroup_nodelete", "cgroup_weight", "uid", "gid", "kb_base", "unit_base", "hugepage-size", "flow_id",
    "flow", "flow_watermark", "flow_sleep", "steadystate", "ss", "steadystate_duration", "ss_dur",
    "steadystate_ramp_time", "ss_ramp", "size", "block", "numruns", "dir", "threads", "device-names", "load",
    "test-duration", "threads-per-queue", "read-req-num-512-blocks", "large-block-op-kbytes", "prep"
};
// clang-format on
const std::size_t fio_job_option_count = sizeof fio_job_option_names / sizeof fio_job_option_names[0];

const char* const fio_libaio_option_names[] = {"userspace_reap", "cmdprio_percentage", "cmdprio_class",
                                               "cmdprio",        "cmdprio_bssplit",    "nowait"};
const std::size_t fio_libaio_option_count =
    sizeof fio_libaio_option_names / sizeof fio_libaio_option_names[0];

const char* const fio_set_option_names[] = {
    "bs_unaligned",  "blocksize_unaligned", "norandommap",  "time_based",        "verify_only",
    "exitall",       "exitall_on_error",    "stonewall",    "wait_for_previous", "new_group",
    "thread",        "group_reporting",     "zero_buffers", "refill_buffers",    "prep",
    "userspace_reap"};
const std::size_t fio_set_option_count = sizeof fio_set_option_names / sizeof fio_set_option_names[0];

} // namespace warmsched::workloads
