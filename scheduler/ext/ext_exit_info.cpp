// The policy's exit info; see ext_exit_info.h.
#include "scheduler/ext/ext_exit_info.h"

#include <cstdio>

namespace warmsched::scheduler {

const char* exit_reason(ext_exit_kind k) {
    switch (k) {
    case ext_exit_kind::none:
        return "none";
    case ext_exit_kind::error:
        return "runtime error";
    case ext_exit_kind::error_bpf:
        return "scx_bpf_error";
    case ext_exit_kind::error_stall:
        return "runnable task stall";
    }
    return "<UNKNOWN>";
}

const char* exit_kind_name(ext_exit_kind k) {
    switch (k) {
    case ext_exit_kind::none:
        return "SCX_EXIT_NONE";
    case ext_exit_kind::error:
        return "SCX_EXIT_ERROR";
    case ext_exit_kind::error_bpf:
        return "SCX_EXIT_ERROR_BPF";
    case ext_exit_kind::error_stall:
        return "SCX_EXIT_ERROR_STALL";
    }
    return "<UNKNOWN>";
}

std::string ext_exit_info::line() const {
    char at_s[48];
    std::snprintf(at_s, sizeof at_s, "%.6f", static_cast<double>(at) / 1e9);
    return "policy " + policy + " ejected (" + exit_reason(kind) + ") at " + at_s + " simulated s: " + msg;
}

} // namespace warmsched::scheduler
