// Reading a JSON file the way rt-app reads it with json-c: C comments (// and /* */) and trailing commas
// (`[1, 2,]`, `{"a": 1,}`) are accepted, and the members of an object keep their order in the file
// (rt-app runs a phase's events in file order). Errors are one line naming the file and the place:
// "FILE:LINE:COLUMN: ..." for malformed text. A key given twice in one object is numbered as rt-app's
// workgen numbers it before it runs rt-app (run, run -> run, run1; a third: run2): rt-app's own examples
// (mp3, browser, spreading-tasks) repeat "run" and "sleep" so, and rt-app reads every key that starts
// with an event's name as that event. (json-c alone would keep only the last one.) Left out: json-c's
// other lenient forms (single quotes, NaN literals).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace warmsched::workloads::rtapp {

using json = nlohmann::ordered_json;

// Parses `text`; `source` names it in messages. Throws usage_error("<tool>: <source>:...").
json parse_json_text(const std::string& text, const std::string& source, const std::string& tool = "rt-app");
// Reads and parses a file; an unreadable file is a usage_error too.
json read_json_file(const std::string& path, const std::string& tool = "rt-app");

// workgen's pre-pass: within each object, a key already used becomes key + N (N from 1, per object,
// moving on past names in use). Strings that are values and comments are left untouched.
std::string number_duplicate_keys(const std::string& text);

// The trailing-comma pre-pass: every comma that is followed, past blanks and comments, by '}' or ']' is
// replaced by a blank (so line and column numbers stay those of the file). Strings and comments are left
// untouched.
std::string blank_trailing_commas(const std::string& text);

} // namespace warmsched::workloads::rtapp
