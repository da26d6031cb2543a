// Loading a policy plug-in (include/warmsched/policy.h) with dlopen: the shared object must export the
// functions WARMSCHED_POLICY defines, built against this API version. A name without a '/' and without
// ".so" is one of the in-tree examples built next to the warmsched binary (policies/NAME.so: simple_fifo,
// llc_rr, llc_sticky). The object stays loaded while the policy lives.
//
// The object is first loaded in a child process (fork; dlopen, create, name(), destroy, dlclose; the
// answer comes back over a pipe), as `import` loads an hwloc XML: its static constructors and
// destructors, warmsched_policy_create and name() are code of the user's that runs before any check of
// ours could, so one that exits, aborts, crashes or does not return (2 s of CPU time, 10 s of wall
// time) becomes one policy_load_error naming the file and what happened, with the last line it printed.
// Only then is it loaded into warmsched itself.
//
// The policy's name (ops.name) must be what sched_ext accepts (bpf_obj_name_cpy): 1 to 127 characters
// (SCX_OPS_NAME_LEN 128 with its NUL), each a letter, a digit, '_' or '.'; a null pointer is refused.
#pragma once

#include <warmsched/policy.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace warmsched::scheduler {

// What went wrong loading a policy (the caller names the file or key).
struct policy_load_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The path `spec` names (an example's name, or a path as given).
std::string policy_path(const std::string& spec);
// Why `name` is not a valid policy name ("" if it is).
std::string policy_name_problem(const char* name);
// Loads and creates the policy; throws policy_load_error.
std::shared_ptr<ext::policy> load_policy(const std::string& spec);

} // namespace warmsched::scheduler
