// The guest's build tree; see guest_build_tree.h.
#include "twin/guest_build_tree.h"

namespace warmsched::twin {

std::string build_object_source(unsigned index) {
    const std::string k = std::to_string(index);
    std::string s = "/* object " + k + " of the twin's build tree (twin/guest_build_tree.cpp) */\n";
    for (unsigned i = 0; i < 8; ++i) {
        const auto n = [&](unsigned v) { return std::to_string(v); };
        s += "unsigned long f" + k + "_" + n(i) + "(unsigned long *a, unsigned long n, unsigned long s) {\n"
             "    for (unsigned long j = 0; j < n; j++) {\n"
             "        switch ((a[j] + s + " + n(i) + ") & 7) {\n"
             "        case 0: s += a[j] * " + n(i + 3) + "; break;\n"
             "        case 1: s ^= a[j] << " + n(i % 13 + 1) + "; break;\n"
             "        case 2: s -= a[j] / " + n(i + 2) + "; break;\n"
             "        case 3: s += (a[j] >> 3) * (s | " + n(i + 1) + "); break;\n"
             "        case 4: a[j] = s + j * " + n(i + 5) + "; break;\n"
             "        case 5: s = s * 31 + a[(j * " + n(i + 7) + ") % n]; break;\n"
             "        case 6: for (unsigned long m = 0; m < (j & 15); m++) s += a[m] ^ m; break;\n"
             "        default: s = (s << 1) | (s >> 63);\n"
             "        }\n"
             "    }\n"
             "    return s;\n"
             "}\n";
    }
    return s;
}

std::vector<std::pair<std::string, std::string>> build_tree_files(unsigned objects) {
    std::vector<std::pair<std::string, std::string>> files;
    std::string mk = "# The twin's build tree: " + std::to_string(objects) + " objects, each compiled by gcc -O2 -c.\n"
                     "OBJS =";
    for (unsigned i = 0; i < objects; ++i) mk += " obj_" + std::to_string(i) + ".o";
    mk += "\nall: $(OBJS)\n%.o: %.c\n\tgcc -O2 -c $< -o $@\n";
    files.emplace_back("Makefile", mk);
    for (unsigned i = 0; i < objects; ++i)
        files.emplace_back("obj_" + std::to_string(i) + ".c", build_object_source(i));
    return files;
}

} // namespace warmsched::twin
