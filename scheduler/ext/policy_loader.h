// Loading a policy plug-in (include/warmsched/policy.h) with dlopen: the shared object must export the
// functions WARMSCHED_POLICY defines, built against this API version. A name without a '/' and without
// ".so" is one of the in-tree examples built next to the warmsched binary (policies/NAME.so: simple_fifo,
// llc_rr, llc_sticky). The object stays loaded while the policy lives.
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
// Loads and creates the policy; throws policy_load_error.
std::shared_ptr<ext::policy> load_policy(const std::string& spec);

} // namespace warmsched::scheduler
