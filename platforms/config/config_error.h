// User errors in configuration: each names where (file:line:column), which key, and what is wrong, on one
// line. Errors are collected while a file is read so the user sees all of them at once, then thrown
// together as one config_error. Internal invariants use assert; this type is only for the user's input.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace warmsched::config {

// Where a value came from: a file position, or the command line (line 0).
struct origin {
    std::string file;
    int line = 0;   // 1-based; 0 = no position (command line, defaults)
    int column = 0; // 1-based
    std::string describe() const;
};

class error_list {
public:
    void add(const origin& where, const std::string& key, const std::string& what);
    void add_line(std::string line) { lines_.push_back(std::move(line)); } // an already formatted line
    bool empty() const { return lines_.empty(); }
    const std::vector<std::string>& lines() const { return lines_; }
    // Throws config_error with every collected line if any were added.
    void throw_if_any() const;

private:
    std::vector<std::string> lines_;
};

class config_error : public std::runtime_error {
public:
    explicit config_error(std::vector<std::string> lines);
    config_error(const origin& where, const std::string& key, const std::string& what);
    const std::vector<std::string>& lines() const { return lines_; }

private:
    std::vector<std::string> lines_;
};

} // namespace warmsched::config
