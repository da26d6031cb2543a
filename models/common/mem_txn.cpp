// Names of transaction sources, as used in reports and stats.
#include "models/common/mem_txn.h"

namespace warmsched::models {

const char* to_string(mem_source s) {
    switch (s) {
    case mem_source::l1:
        return "l1";
    case mem_source::l2:
        return "l2";
    case mem_source::peer_cache:
        return "peer_cache";
    case mem_source::llc:
        return "llc";
    case mem_source::remote_llc:
        return "remote_llc";
    case mem_source::remote_socket:
        return "remote_socket";
    case mem_source::local_memory:
        return "local_memory";
    case mem_source::remote_memory:
        return "remote_memory";
    case mem_source::count:
        break;
    }
    return "?";
}

} // namespace warmsched::models
