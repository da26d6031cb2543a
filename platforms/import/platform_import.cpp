// Import front door; see platform_import.h.
#include "platforms/import/platform_import.h"

#include "base/files/input_file.h"
#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/import/hwloc_import.h"
#include "platforms/import/lscpu_import.h"
#include "platforms/import/machine_shape.h"
#include "platforms/import/nearest_family.h"
#include "platforms/import/platform_writer.h"
#include "platforms/import/sysfs_import.h"
#include "platforms/platform_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

namespace warmsched::platform::import {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw config::config_error(config::origin{source, 0, 0}, "", what);
}

std::string read_all(std::istream& in) {
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What a text is, by its first non-blank character: '<' hwloc XML, '{' lscpu JSON.
import_from sniff(const std::string& text, const std::string& source) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '<') return import_from::hwloc;
    if (first != std::string::npos && text[first] == '{') return import_from::lscpu;
    fail(source, "neither hwloc XML (lstopo --of xml) nor lscpu JSON (lscpu -J); give --from for a sysfs tree");
}

// A platform name from a file name: its stem, with anything but [A-Za-z0-9._-] made '-'.
std::string name_from(const std::string& input) {
    std::error_code ec;
    if (input.empty() || input == "-" || fs::is_directory(input, ec)) return "this-machine";
    std::string n = fs::path(input).stem().string();
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
    return n.empty() ? "imported" : n;
}

} // namespace

bool parse_import_from(const std::string& name, import_from& out) {
    if (name == "hwloc") out = import_from::hwloc;
    else if (name == "sysfs") out = import_from::sysfs;
    else if (name == "lscpu") out = import_from::lscpu;
    else return false;
    return true;
}

bool is_hwloc_xml(const std::string& path) {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".xml") == 0) return true;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false; // a FIFO would block here; the YAML reader names it
    std::ifstream in(path);
    char head[5] = {};
    return in && in.read(head, 5) && std::string(head, 5) == "<?xml";
}

std::string import_platform_yaml(const import_request& r) {
    const std::string& in = r.input;
    // The name goes into the file (quoted) and every message about the platform: one line of text.
    if (std::any_of(r.name.begin(), r.name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        throw config::config_error(config::origin{"<command line>", 0, 0}, "--name",
                                   "a platform name is one line of text, without control characters (got \"" +
                                       r.name + "\")");
    machine_inventory inv;
    import_from from = r.from;
    std::error_code dir_ec; // a symlink loop or no permission: not a directory, and reading it says why
    if (in.empty()) { // this machine
        if (from == import_from::lscpu) fail("<command line>", "--from lscpu needs a file of `lscpu -J` output");
        inv = from == import_from::hwloc ? read_hwloc_this_machine() : read_sysfs("/");
        if (from != import_from::hwloc) inv.source = "this machine (/sys)";
        // Some virtual machines' kernels list no caches under /sys (no cpu*/cache directories); libhwloc
        // then reads them from CPUID. --from sysfs keeps to /sys.
        if (from == import_from::automatic && inv.caches.empty()) {
            inv = read_hwloc_this_machine();
            inv.source = "this machine (hwloc: /sys lists no caches)";
        }
    } else if (from == import_from::sysfs || (from == import_from::automatic && fs::is_directory(in, dir_ec))) {
        if (in == "-") fail("<command line>", "--from sysfs reads a directory, not standard input");
        if (!fs::is_directory(in, dir_ec))
            fail(in, dir_ec && dir_ec != std::errc::no_such_file_or_directory
                         ? "cannot be read: " + dir_ec.message()
                         : "not a directory (a sysfs root holding sys/devices/system/cpu)");
        try {
            inv = read_sysfs(in);
        } catch (const fs::filesystem_error& e) { // a directory of the tree that cannot be listed
            fail(e.path1().string(), "cannot be read: " + e.code().message());
        }
    } else {
        std::string text;
        const std::string source = in == "-" ? "<stdin>" : in;
        if (in == "-") {
            text = read_all(std::cin);
        } else { // a regular file of at most 16MiB: a directory, a FIFO or a device is named for what it is
            std::string why;
            std::optional<std::string> file = base::read_input_file(in, why);
            if (!file) fail(in, why);
            text = std::move(*file);
        }
        if (from == import_from::automatic) from = sniff(text, source);
        inv = from == import_from::hwloc ? read_hwloc_xml_text(text, source) : read_lscpu_json(text, source);
    }

    // A CPU's brand string is 48 bytes (CPUID 0x80000002-4); a longer one is not a model name, and the
    // family matching runs std::regex over it, which recurses once per character.
    if (inv.model_name.size() > 128) inv.model_name.resize(128);
    const machine_shape shape = shape_machine(inv);
    const unsigned nodes_per_socket =
        shape.node_per == "machine" ? 1 : std::max(1u, shape.num_nodes / shape.num_sockets());
    const family_values family = family_values_of(nearest_family(inv, shape.num_sockets(), nodes_per_socket));
    const std::string yaml = write_platform_yaml(inv, shape, family, r.name.empty() ? name_from(in) : r.name,
                                                r.measured, r.appendix);

    // The file must load as any platform file does; what the model cannot run is the input's problem.
    try {
        read_platform(config::load_yaml_text(yaml, "<imported>"));
    } catch (const config::config_error& e) {
        std::string why = e.lines().front();
        if (why.rfind("<imported>", 0) == 0) why = why.substr(why.find(": ") + 2);
        fail(inv.source, "the imported platform does not load: " + why);
    }
    return yaml;
}

} // namespace warmsched::platform::import
