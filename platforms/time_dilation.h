// `time_dilation: K` in a platform: the same machine running K times slower. Every time of the hardware
// and of the kernel's direct costs is multiplied by K, the clock frequency and every bandwidth divided
// by it; cycle counts, sizes and the scheduler's own times (tick, slices, balance intervals) are left
// alone. A dilated machine does the same work per tick as an emulated guest that runs K times slower
// than the machine it stands for: `warmsched twin --dilate` compares the real kernel in QEMU's TCG with
// the model so dilated. It is not a penalty: nothing gets relatively dearer. Default 1: the machine as
// it is.
#pragma once

#include "platforms/platform_params.h"

namespace warmsched::platform {

void apply_time_dilation(platform_params& p, double k);

} // namespace warmsched::platform
