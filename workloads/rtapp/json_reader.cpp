// rt-app's lenient JSON; see json_reader.h.
#include "workloads/rtapp/json_reader.h"

#include "workloads/cli/option_parser.h"

#include "base/files/input_file.h"

#include <cstdio>
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

std::string number_duplicate_keys(const std::string& text) {
    struct frame {
        bool object = false;
        std::set<std::string> keys;
        unsigned curid = 1; // workgen's counter: per object, it only grows
    };
    std::vector<frame> stack;
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            std::size_t end = i + 1;
            while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
            const std::string key = text.substr(i + 1, std::min(end, text.size()) - i - 1);
            const std::size_t next = skip_blanks_and_comments(text, end + 1);
            if (!stack.empty() && stack.back().object && next < text.size() && text[next] == ':') {
                frame& f = stack.back();
                std::string k = key;
                if (f.keys.count(k)) { // workgen: key + curid, the counter moving on past names in use
                    k = key + std::to_string(f.curid);
                    while (f.keys.count(k)) k = key + std::to_string(++f.curid);
                }
                f.keys.insert(k);
                out += '"' + k + '"';
            } else {
                out.append(text, i, std::min(end + 1, text.size()) - i);
            }
            i = end + 1;
            continue;
        }
        if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
            const std::size_t after = skip_blanks_and_comments(text, i);
            out.append(text, i, after - i);
            i = after;
            continue;
        }
        if (c == '{' || c == '[') stack.push_back({c == '{', {}, 1});
        if ((c == '}' || c == ']') && !stack.empty()) stack.pop_back();
        out += c;
        ++i;
    }
    return out;
}

json parse_json_text(const std::string& text, const std::string& source, const std::string& tool) {
    json doc;
    try {
        doc = json::parse(blank_trailing_commas(number_duplicate_keys(text)), nullptr, true, true);
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ...". Taken
        // apart by hand: std::regex recurses once per character, and the message quotes the input
        // ("last read: '...'"), so a long token overflowed the stack (fuzz_rtapp_json).
        const std::string what = e.what();
        unsigned long line_no = 0, col_no = 0;
        int used = 0;
        const std::size_t at = what.find("at line ");
        if (at != std::string::npos &&
            std::sscanf(what.c_str() + at, "at line %lu, column %lu: %n", &line_no, &col_no, &used) == 2 && used > 0)
            throw usage_error(tool + ": " + source + ":" + std::to_string(line_no) + ":" + std::to_string(col_no) +
                              ": malformed JSON: " + what.substr(at + static_cast<std::size_t>(used)), true);
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
                          ": malformed JSON: " + what, true);
    } catch (const json::out_of_range& e) { // 406: a number past a double's range, e.g. 1e400
        const std::string what = e.what();
        const std::size_t q = what.find("number overflow");
        throw usage_error(tool + ": " + source + ": " +
                          (q == std::string::npos ? what : what.substr(q)) + " (beyond a double's range)", true);
    }
    return doc;
}

json read_json_file(const std::string& path, const std::string& tool) {
    std::string why;
    const std::optional<std::string> text = base::read_input_file(path, why);
    if (!text) throw usage_error(tool + ": " + path + ": " + why, true);
    return parse_json_text(*text, path, tool);
}

} // namespace warmsched::workloads::rtapp
