// stats.txt as JSON; see stats_json.h.
#include "sim/outputs/stats_json.h"

#include <sstream>
#include <vector>

namespace warmsched::sim {
namespace {
std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        q += c;
    }
    return q + "\"";
}

std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(' ');
    const auto b = s.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}
} // namespace

void write_stats_json(std::ostream& out, const std::string& stats_txt) {
    std::istringstream in(stats_txt);
    std::vector<std::vector<std::string>> blocks; // each stat as its JSON member text
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("---------- Begin Simulation Statistics", 0) == 0) {
            blocks.emplace_back();
            inside = true;
            continue;
        }
        if (line.rfind("---------- End Simulation Statistics", 0) == 0) {
            inside = false;
            continue;
        }
        const auto hash = line.find('#');
        if (!inside || hash == std::string::npos) continue;
        std::istringstream fields(line.substr(0, hash));
        std::string name, value;
        if (!(fields >> name >> value)) continue;
        std::string desc = trim(line.substr(hash + 1)), unit;
        if (!desc.empty() && desc.back() == ')') {
            const auto open = desc.rfind('(');
            if (open != std::string::npos) {
                unit = desc.substr(open + 1, desc.size() - open - 2);
                desc = trim(desc.substr(0, open));
            }
        }
        // stats.txt prints with %g: valid JSON numbers except nan/inf, which JSON has no word for.
        const bool finite = value.find_first_of("ni") == std::string::npos;
        blocks.back().push_back("    " + quoted(name) + ": {\"value\": " + (finite ? value : "null") +
                                ", \"description\": " + quoted(desc) + ", \"unit\": " + quoted(unit) + "}");
    }
    out << "{\n  \"simulation\": [\n";
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        out << "   {\n";
        for (std::size_t i = 0; i < blocks[b].size(); ++i)
            out << blocks[b][i] << (i + 1 < blocks[b].size() ? ",\n" : "\n");
        out << "   }" << (b + 1 < blocks.size() ? ",\n" : "\n");
    }
    out << "  ]\n}\n";
}

} // namespace warmsched::sim
