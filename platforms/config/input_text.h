// What the text of a configuration input may hold, checked on its raw bytes before any parser sees
// them, and how user text is shown in messages. A YAML file (or a -p value) is refused with its line
// number when it holds a NUL byte (a binary file, or a copy gone wrong: yaml-cpp calls it "unknown escape
// character"), bytes that are not UTF-8 (they would be copied into config.yaml and the results), or
// carriage returns that end lines on their own (classic Mac OS line endings: yaml-cpp sees one long line
// and reports the first required key as missing). CRLF (Windows) line endings are fine.
// Messages show user text through printable(): control characters, DEL and bytes that are not UTF-8 as
// \xNN escapes, so that an escape sequence in an unknown key is not sent raw to the terminal; valid UTF-8
// passes unchanged.
#pragma once

#include <string>

namespace warmsched::config {

struct text_problem {
    int line = 0;     // 1-based; 0 when the problem is the whole text's
    std::string what; // "" when the text is acceptable
};
// The first thing wrong with `text`, if any.
text_problem input_text_problem(const std::string& text);

// `text` with control characters, DEL and bytes outside UTF-8 shown as \xNN (\n, \r and \t as "\\n").
std::string printable(const std::string& text);

} // namespace warmsched::config
