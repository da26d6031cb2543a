// `warmsched import` as a function: reads a machine (an hwloc XML file, a sysfs root directory, lscpu
// JSON, standard input, or this machine), shapes it, picks the nearest shipped family and returns the
// platform YAML text, checked by loading it through the normal platform reader. Also the test behind
// `--platform my.xml`: a path ending in .xml or a file starting with `<?xml` is imported on the fly.
#pragma once

#include <map>
#include <string>

namespace warmsched::platform::import {

enum class import_from { automatic, hwloc, sysfs, lscpu };

// A value measured on the machine (`warmsched calibrate`), written instead of the family's estimate.
struct measured_value {
    std::string text;    // as the file writes it: "1.12ns", "3.05GHz", "41"
    std::string comment; // "measured: median of 5 ..." (the line's comment)
};

struct import_request {
    import_from from = import_from::automatic;
    std::string input;   // a file, a sysfs root directory, "-" for standard input, "" for this machine
    std::string name;    // the platform's name; "" derives it from the input's file name
    std::map<std::string, measured_value> measured; // dotted key (caches[0].latency) -> its measured value
    std::string appendix; // more top-level sections (calibrate's kernel_costs: and calibration:)
};

// Throws config_error ("INPUT: what is wrong", one line) when the input cannot be read or the machine
// cannot be stated in the platform format.
std::string import_platform_yaml(const import_request& request);

// True for a path ending in .xml or a readable file whose text starts with "<?xml".
bool is_hwloc_xml(const std::string& path);

// "hwloc", "sysfs", "lscpu" -> import_from; false when the name is none of them.
bool parse_import_from(const std::string& name, import_from& out);

} // namespace warmsched::platform::import
