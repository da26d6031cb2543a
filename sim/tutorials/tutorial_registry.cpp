// The tutorials, in the order they are taught: from where a cache line comes from, through what moving
// and stacking tasks costs, to the scheduler's choices (wake_affine, CFS vs EEVDF, RT placement,
// throttling) and a policy of your own. Each is one file of this folder and one page of docs/tutorials/.
#include "sim/tutorials/tutorial.h"

namespace warmsched::sim::tutorials {

const tutorial& line_origin_tutorial();
const tutorial& migration_cost_tutorial();
const tutorial& stacking_tutorial();
const tutorial& wake_affine_tutorial();
const tutorial& cfs_vs_eevdf_tutorial();
const tutorial& rt_placement_tutorial();
const tutorial& throttling_tutorial();
const tutorial& own_policy_tutorial();

const std::vector<const tutorial*>& all_tutorials() {
    static const std::vector<const tutorial*> list{
        &line_origin_tutorial(),  &migration_cost_tutorial(), &stacking_tutorial(),
        &wake_affine_tutorial(),  &cfs_vs_eevdf_tutorial(),   &rt_placement_tutorial(),
        &throttling_tutorial(),   &own_policy_tutorial(),
    };
    return list;
}

const tutorial* find_tutorial(const std::string& name) {
    for (const tutorial* t : all_tutorials())
        if (t->name() == name) return t;
    return nullptr;
}

} // namespace warmsched::sim::tutorials
