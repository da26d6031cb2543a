// A directory tree made from a fuzz input, for harnesses whose reader takes a directory (compare's
// results directories). The input is a list of entries, each a header line and, for a file, the lines
// up to the next header:
//
//   --- seed-1/stats.json        a regular file holding the lines that follow
//   --- seed-1/report.txt -> ../seed-2/report.txt   a symbolic link (to a path in the tree, or to
//                                /dev/null or /dev/zero; a link may point at itself or form a loop)
//   --- seed-2/stats.json |      a FIFO (a reader that opens it would block: a finding)
//   --- seed-3/                  a directory
//
// Paths are relative, of the characters [A-Za-z0-9._-] and '/', without '..', at most 4 levels deep; a
// header that breaks these rules is taken as a line of the file before it. At most 64 entries; parent
// directories are made as needed; an entry whose path is taken, or below a link, a file or a FIFO, is
// left out. Text before the first header is ignored. The tree is rebuilt from
// nothing for every input in /tmp/warmsched-fuzz-<pid>.tree/.
#pragma once

#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace warmsched::fuzz {

namespace tree_detail {
inline bool valid_path(const std::string& p) {
    if (p.empty() || p.front() == '/' || p.size() > 200) return false;
    int depth = 0;
    std::istringstream parts(p);
    for (std::string part; std::getline(parts, part, '/');) {
        if (part.empty() || part == "." || part == ".." || ++depth > 4) return false;
        for (const char c : part)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
    }
    return true;
}
} // namespace tree_detail

// Builds the tree of `text`; returns its root.
inline std::string scratch_tree(const std::string& text) {
    namespace fs = std::filesystem;
    const fs::path root = "/tmp/warmsched-fuzz-" + std::to_string(::getpid()) + ".tree";
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root, ec);

    struct entry {
        std::string path, target, body;
        char kind = 'f'; // f: file, l: link, p: FIFO, d: directory
    };
    std::vector<entry> entries;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("--- ", 0) == 0 && entries.size() < 64) {
            entry e;
            std::string head = line.substr(4);
            if (const auto arrow = head.find(" -> "); arrow != std::string::npos) {
                e.kind = 'l';
                e.target = head.substr(arrow + 4);
                head = head.substr(0, arrow);
                if (e.target != "/dev/null" && e.target != "/dev/zero" && !tree_detail::valid_path(e.target) &&
                    !(e.target.rfind("../", 0) == 0 && tree_detail::valid_path(e.target.substr(3))))
                    e.kind = 0;
            } else if (head.size() > 2 && head.compare(head.size() - 2, 2, " |") == 0) {
                e.kind = 'p';
                head.resize(head.size() - 2);
            } else if (!head.empty() && head.back() == '/') {
                e.kind = 'd';
                head.pop_back();
            }
            e.path = head;
            if (e.kind && tree_detail::valid_path(e.path)) {
                entries.push_back(e);
                continue;
            }
        }
        if (!entries.empty() && entries.back().kind == 'f') entries.back().body += line + "\n";
    }
    // An entry is made only where nothing is yet and every directory above it under the root is a real
    // one: nothing is written through a link (which may lead out of the tree) or into a FIFO (which
    // blocks the harness itself). The first entry of a path wins.
    const auto placeable = [&](const fs::path& rel) {
        fs::path at = root;
        for (auto it = rel.begin(); it != rel.end(); ++it) {
            at /= *it;
            const fs::file_status st = fs::symlink_status(at, ec);
            if (!fs::exists(st)) return true;
            if (std::next(it) == rel.end() || !fs::is_directory(st)) return false;
        }
        return false;
    };
    for (const entry& e : entries) {
        if (!placeable(e.path)) continue;
        const fs::path p = root / e.path;
        fs::create_directories(p.parent_path(), ec);
        switch (e.kind) {
        case 'f':
            std::ofstream(p, std::ios::binary | std::ios::trunc) << e.body;
            break;
        case 'l':
            fs::create_symlink(e.target, p, ec);
            break;
        case 'p':
            ::mkfifo(p.c_str(), 0600);
            break;
        case 'd':
            fs::create_directories(p, ec);
            break;
        }
    }
    return root.string();
}

} // namespace warmsched::fuzz
