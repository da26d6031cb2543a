// Raw-byte checks of configuration text and printable user text; see input_text.h.
#include "platforms/config/input_text.h"

#include <cstdio>

namespace warmsched::config {
namespace {
// The length of the valid UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(const std::string& text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b = byte(i);
    if (b < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf; // the range of the second byte
    if (b >= 0xc2 && b <= 0xdf) n = 2;
    else if (b == 0xe0) n = 3, lo = 0xa0;
    else if (b >= 0xe1 && b <= 0xec) n = 3;
    else if (b == 0xed) n = 3, hi = 0x9f;
    else if (b >= 0xee && b <= 0xef) n = 3;
    else if (b == 0xf0) n = 4, lo = 0x90;
    else if (b >= 0xf1 && b <= 0xf3) n = 4;
    else if (b == 0xf4) n = 4, hi = 0x8f;
    else return 0;
    if (i + n > text.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
    return n;
}
} // namespace

text_problem input_text_problem(const std::string& text) {
    int line = 1;
    bool any_lf = false, lone_cr = false;
    int lone_cr_line = 0;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\0')
            return {line, "a NUL byte (a binary file? configuration files are text)"};
        if (c == '\n') {
            any_lf = true;
            ++line;
        } else if (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n') && !lone_cr) {
            lone_cr = true;
            lone_cr_line = line;
        }
        const std::size_t n = utf8_length(text, i);
        if (n == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
            return {line, std::string("invalid UTF-8 (byte ") + hex + "): the text must be UTF-8"};
        }
        i += n;
    }
    if (lone_cr && !any_lf)
        return {0, "CR-only line endings (classic Mac OS): the file reads as one line; save it with LF (or "
                   "CRLF) line endings"};
    if (lone_cr)
        return {lone_cr_line, "a carriage return without a line feed (mixed line endings); save the file with LF "
                              "(or CRLF) line endings"};
    return {};
}

std::string printable(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto b = static_cast<unsigned char>(c);
        if (const std::size_t n = utf8_length(text, i); n > 1) { // a whole UTF-8 character
            out.append(text, i, n);
            i += n - 1;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (b < 0x20 || b >= 0x7f) { // a control character, DEL, or a byte that is not UTF-8
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", b);
            out += hex;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace warmsched::config
