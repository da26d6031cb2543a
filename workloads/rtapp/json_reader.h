// Reading a JSON file the way rt-app reads it with json-c: C comments (// and /* */) and trailing commas
// (`[1, 2,]`, `{"a": 1,}`) are accepted, and the members of an object keep their order in the file
// (rt-app runs a phase's events in file order). Errors are one line naming the file and the place:
// "FILE:LINE:COLUMN: ..." for malformed text, "FILE: PATH: duplicate key ..." for a key given twice in
// one object (json-c silently keeps the last one; workgen numbers them instead, so a repeated key is
// almost always a mistake). Left out: json-c's other lenient forms (single quotes, NaN literals).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace warmsched::workloads::rtapp {

using json = nlohmann::ordered_json;

// Parses `text`; `source` names it in messages. Throws usage_error("<tool>: <source>:...").
json parse_json_text(const std::string& text, const std::string& source, const std::string& tool = "rt-app");
// Reads and parses a file; an unreadable file is a usage_error too.
json read_json_file(const std::string& path, const std::string& tool = "rt-app");

// The trailing-comma pre-pass: every comma that is followed, past blanks and comments, by '}' or ']' is
// replaced by a blank (so line and column numbers stay those of the file). Strings and comments are left
// untouched.
std::string blank_trailing_commas(const std::string& text);

} // namespace warmsched::workloads::rtapp
