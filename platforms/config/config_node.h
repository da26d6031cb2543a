// A configuration tree that remembers where every value came from (file, line, column), so that errors
// found long after parsing still point at the text the user wrote. Built from YAML files (a file may name
// a base file with `include:`; its own keys then override the base's, maps merged key by key), and
// edited by command-line overrides (`-p dotted.key=value`). Map keys keep their order of appearance.
#pragma once

#include "platforms/config/config_error.h"

#include <deque>
#include <list>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::config {

class config_node {
public:
    enum class kind { null, scalar, sequence, map };

    config_node() = default;
    static config_node make_scalar(std::string value, origin where);
    static config_node make_map(origin where);
    static config_node make_sequence(origin where);
    static config_node make_null(origin where); // an empty value ("key:" or "- "), where the user wrote it

    kind type() const { return kind_; }
    bool is_null() const { return kind_ == kind::null; }
    bool is_scalar() const { return kind_ == kind::scalar; }
    bool is_map() const { return kind_ == kind::map; }
    bool is_sequence() const { return kind_ == kind::sequence; }
    const origin& where() const { return where_; }
    const std::string& scalar() const { return scalar_; }

    // Map access. find() returns nullptr when absent.
    struct entry; // key, key position, value (defined below)
    const std::list<entry>& entries() const { return entries_; }
    const config_node* find(const std::string& key) const;
    config_node* find(const std::string& key);
    const entry* find_entry(const std::string& key) const;
    // Inserts or replaces a key (keeping its position when it exists). Searches the map: linear.
    config_node& set(const std::string& key, config_node value, origin key_where = {});
    // Adds a key the caller knows the map does not have, without searching (a map read from YAML is
    // built so, its keys checked for duplicates with a hash set: 120,000 keys took minutes with set()).
    config_node& append(std::string key, config_node value, origin key_where);
    void erase(const std::string& key);

    // Sequence access.
    const std::deque<config_node>& items() const { return items_; }
    std::deque<config_node>& items() { return items_; }
    void push_back(config_node v) { items_.push_back(std::move(v)); }

    // Deep merge: maps merge key by key; anything else in `over` replaces this node. Linear in the sizes
    // of both maps (a hash index of this one's keys).
    void merge_from(const config_node& over);

    // YAML text of the tree (used to write the resolved configuration).
    std::string to_yaml() const;

private:
    kind kind_ = kind::null;
    origin where_;
    std::string scalar_;
    std::list<entry> entries_; // list/deque: references stay valid as values are added
    std::deque<config_node> items_;
};

struct config_node::entry {
    std::string key;
    origin key_where;
    config_node value;
};

// Reads a YAML file into a tree, resolving `include:` (a path relative to the including file, or a list
// of them). Throws config_error for unreadable files, YAML syntax errors and include cycles.
config_node load_yaml_file(const std::string& path);
// Parses YAML text (for tests and embedded defaults); `name` is used in error messages.
config_node load_yaml_text(const std::string& text, const std::string& name);

// Applies `dotted.key=value` to the tree (creating maps as needed; numeric segments index sequences). A
// key that itself contains dots is matched whole where the map already has it (`cgroups.0.cpu.max=...`
// sets a cgroup's "cpu.max"); `\.` is a dot inside a segment, for such a key not there yet. A value in
// YAML flow style, "[...]" or "{...}", replaces the key's whole list or map.
// Throws config_error naming the override when it is malformed or walks through a non-map value.
void apply_override(config_node& root, const std::string& assignment);

} // namespace warmsched::config
