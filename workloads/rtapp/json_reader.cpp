// rt-app's lenient JSON; see json_reader.h.
#include "workloads/rtapp/json_reader.h"

#include "workloads/cli/option_parser.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace warmsched::workloads::rtapp {

namespace {

// Index of the first character at or after `i` that is neither blank nor inside a comment.
std::size_t skip_blanks_and_comments(const std::string& s, std::size_t i) {
    while (i < s.size()) {
        const char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const std::size_t end = s.find("*/", i + 2);
            if (end == std::string::npos) return s.size();
            i = end + 2;
        } else {
            break;
        }
    }
    return i;
}

// Where each object of the document is (its path from the root), to name a duplicate key.
struct key_tracker {
    struct frame {
        bool array = false;
        std::set<std::string> keys;
        std::string key; // the member being parsed (objects)
        std::size_t index = 0;
    };
    std::vector<frame> stack;
    std::string duplicate, duplicate_in;

    std::string path_of_top() const {
        std::string p;
        for (std::size_t i = 0; i + 1 < stack.size(); ++i) {
            if (stack[i].array)
                p += "[" + std::to_string(stack[i].index) + "]";
            else
                p += (p.empty() ? "" : ".") + stack[i].key;
        }
        return p;
    }
    void element_done() {
        if (!stack.empty() && stack.back().array) ++stack.back().index;
    }
    bool operator()(int, json::parse_event_t ev, json& parsed) {
        switch (ev) {
        case json::parse_event_t::object_start:
            stack.push_back({});
            break;
        case json::parse_event_t::array_start:
            stack.push_back({});
            stack.back().array = true;
            break;
        case json::parse_event_t::key: {
            const std::string k = parsed.get<std::string>();
            if (!stack.back().keys.insert(k).second && duplicate.empty()) {
                duplicate = k;
                duplicate_in = path_of_top();
            }
            stack.back().key = k;
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            stack.pop_back();
            element_done();
            break;
        case json::parse_event_t::value:
            element_done();
            break;
        }
        return true;
    }
};

} // namespace

std::string blank_trailing_commas(const std::string& text) {
    std::string s = text;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '"') { // a string: skip it, honouring escapes
            ++i;
            while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
            ++i;
        } else if (c == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
            i = skip_blanks_and_comments(s, i);
        } else if (c == ',') {
            const std::size_t next = skip_blanks_and_comments(s, i + 1);
            if (next < s.size() && (s[next] == '}' || s[next] == ']')) s[i] = ' ';
            ++i;
        } else {
            ++i;
        }
    }
    return s;
}

json parse_json_text(const std::string& text, const std::string& source, const std::string& tool) {
    key_tracker keys;
    json doc;
    try {
        doc = json::parse(blank_trailing_commas(text), std::ref(keys), true, true);
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
        static const std::regex where(R"(at line (\d+), column (\d+): (.*))");
        std::smatch m;
        const std::string what = e.what();
        if (std::regex_search(what, m, where))
            throw usage_error(tool + ": " + source + ":" + m[1].str() + ":" + m[2].str() +
                              ": malformed JSON: " + m[3].str());
        // No line in the message: count it from the byte offset.
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw usage_error(tool + ": " + source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                          ": malformed JSON: " + what);
    }
    if (!keys.duplicate.empty())
        throw usage_error(
            tool + ": " + source + ": " + (keys.duplicate_in.empty() ? "(top level)" : keys.duplicate_in) +
            ": duplicate key \"" + keys.duplicate +
            "\" (rt-app's parser keeps only the last one; number repeated events: run0, run1, ...)");
    return doc;
}

json read_json_file(const std::string& path, const std::string& tool) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error(tool + ": cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return parse_json_text(text.str(), path, tool);
}

} // namespace warmsched::workloads::rtapp
