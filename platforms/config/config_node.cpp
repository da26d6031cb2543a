// Configuration tree with origins, YAML loading with includes, and command-line overrides.
#include "platforms/config/config_node.h"

#include "base/files/input_file.h"
#include "platforms/config/input_text.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace warmsched::config {
namespace fs = std::filesystem;

config_node config_node::make_scalar(std::string value, origin where) {
    config_node n;
    n.kind_ = kind::scalar;
    n.scalar_ = std::move(value);
    n.where_ = std::move(where);
    return n;
}

config_node config_node::make_map(origin where) {
    config_node n;
    n.kind_ = kind::map;
    n.where_ = std::move(where);
    return n;
}

config_node config_node::make_null(origin where) {
    config_node n;
    n.where_ = std::move(where);
    return n;
}

config_node config_node::make_sequence(origin where) {
    config_node n;
    n.kind_ = kind::sequence;
    n.where_ = std::move(where);
    return n;
}

const config_node::entry* config_node::find_entry(const std::string& key) const {
    for (const auto& e : entries_)
        if (e.key == key) return &e;
    return nullptr;
}

const config_node* config_node::find(const std::string& key) const {
    const entry* e = find_entry(key);
    return e ? &e->value : nullptr;
}

config_node* config_node::find(const std::string& key) {
    for (auto& e : entries_)
        if (e.key == key) return &e.value;
    return nullptr;
}

config_node& config_node::set(const std::string& key, config_node value, origin key_where) {
    if (kind_ != kind::map) {
        kind_ = kind::map;
        scalar_.clear();
        items_.clear();
    }
    for (auto& e : entries_)
        if (e.key == key) {
            e.value = std::move(value);
            return e.value;
        }
    entries_.push_back({key, std::move(key_where), std::move(value)});
    return entries_.back().value;
}

config_node& config_node::append(std::string key, config_node value, origin key_where) {
    if (kind_ != kind::map) {
        kind_ = kind::map;
        scalar_.clear();
        items_.clear();
    }
    entries_.push_back({std::move(key), std::move(key_where), std::move(value)});
    return entries_.back().value;
}

void config_node::erase(const std::string& key) {
    entries_.erase(
        std::remove_if(entries_.begin(), entries_.end(), [&](const entry& e) { return e.key == key; }),
        entries_.end());
}

void config_node::merge_from(const config_node& over) {
    if (kind_ == kind::map && over.kind_ == kind::map) {
        // Keys are unique in both maps, so the index of this map's keys needs no update as `over`'s new
        // keys are appended.
        std::unordered_map<std::string_view, config_node*> mine;
        mine.reserve(entries_.size());
        for (auto& e : entries_) mine.emplace(e.key, &e.value);
        for (const auto& e : over.entries_) {
            if (const auto it = mine.find(e.key); it != mine.end())
                it->second->merge_from(e.value);
            else
                entries_.push_back(e);
        }
        return;
    }
    *this = over;
}

namespace {

void emit(YAML::Emitter& out, const config_node& n) {
    switch (n.type()) {
    case config_node::kind::null:
        out << YAML::Null;
        break;
    case config_node::kind::scalar:
        out << n.scalar();
        break;
    case config_node::kind::sequence: {
        bool flat = std::all_of(n.items().begin(), n.items().end(),
                                [](const config_node& c) { return c.is_scalar(); });
        out << (flat ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
        for (const auto& c : n.items()) emit(out, c);
        out << YAML::EndSeq;
        break;
    }
    case config_node::kind::map:
        out << YAML::BeginMap;
        for (const auto& e : n.entries()) {
            out << YAML::Key << e.key << YAML::Value;
            emit(out, e.value);
        }
        out << YAML::EndMap;
        break;
    }
}

origin origin_of(const YAML::Mark& m, const std::string& file) {
    return origin{file, m.line + 1, m.column + 1};
}

// Bounds on what one document may expand to. yaml-cpp shares an aliased node instead of copying it, so
// nine lines of nested aliases (a "billion laughs") are small to parse and 10^9 values to convert; the
// shipped platforms hold ~300 values, an experiment with a thousand tasks ~10^4.
constexpr std::size_t max_values = 1'000'000;
constexpr int max_nesting = 64;
constexpr std::size_t max_include_depth = 32;

struct convert_budget {
    std::size_t values = 0;
};

config_node convert(const YAML::Node& y, const std::string& file, convert_budget& budget, int depth) {
    origin where = origin_of(y.Mark(), file);
    if (++budget.values > max_values)
        throw config_error(where, "",
                           "the document expands to more than " + std::to_string(max_values) +
                               " values (aliases repeated without bound?)");
    if (depth > max_nesting)
        throw config_error(where, "", "maps and lists nest deeper than " + std::to_string(max_nesting) + " levels");
    // Values are plain text to the reader: a tag (!!binary, !!int, !custom) would be silently ignored.
    // "?" and "!" are yaml-cpp's marks of an untagged plain and quoted value.
    if (const std::string& tag = y.Tag(); !tag.empty() && tag != "?" && tag != "!") {
        std::string shown = tag;
        if (shown.rfind("tag:yaml.org,2002:", 0) == 0) shown = "!!" + shown.substr(18);
        throw config_error(where, "",
                           "the YAML tag " + shown +
                               " is not understood (values are plain text here: write the value without a tag)");
    }
    switch (y.Type()) {
    case YAML::NodeType::Scalar:
        return config_node::make_scalar(y.Scalar(), where);
    case YAML::NodeType::Sequence: {
        config_node n = config_node::make_sequence(where);
        for (const auto& item : y) {
            n.push_back(convert(item, file, budget, depth + 1));
            // An empty item ("-" alone) has no position of its own in yaml-cpp (its mark is the next
            // token's): the list's is the nearest the user wrote.
            if (n.items().back().is_null()) n.items().back() = config_node::make_null(where);
        }
        return n;
    }
    case YAML::NodeType::Map: {
        config_node n = config_node::make_map(where);
        std::unordered_set<std::string> keys; // a hash set: a search of the map per key was quadratic
        for (const auto& kv : y) {
            origin key_where = origin_of(kv.first.Mark(), file);
            if (!kv.first.IsScalar()) throw config_error(key_where, "", "a map key must be a plain name");
            std::string key = kv.first.Scalar();
            if (!keys.insert(key).second) throw config_error(key_where, key, "key appears twice in the same map");
            n.append(std::move(key), convert(kv.second, file, budget, depth + 1), std::move(key_where));
        }
        return n;
    }
    default:
        return config_node::make_null(where);
    }
}

config_node parse_text(const std::string& text, const std::string& name) {
    if (const text_problem p = input_text_problem(text); !p.what.empty())
        throw config_error(origin{name, p.line, 0}, "", p.what);
    YAML::Node root;
    try {
        // Every document is parsed, so that a second one is refused instead of dropped.
        const std::vector<YAML::Node> documents = YAML::LoadAll(text);
        if (documents.size() > 1) {
            const YAML::Mark m = documents[1].Mark();
            throw config_error(m.line >= 0 ? origin{name, m.line + 1, 0} : origin{name, 0, 0}, "",
                               "a second YAML document (after ---): a configuration file holds one; merge "
                               "them, or put the second in its own file");
        }
        if (!documents.empty()) root = documents.front();
    } catch (const YAML::DeepRecursion& e) { // yaml-cpp's own guard, whose text is "bad file"
        throw config_error(origin_of(e.mark, name), "",
                           "maps and lists nest deeper than " + std::to_string(max_nesting) + " levels");
    } catch (const YAML::ParserException& e) {
        throw config_error(origin_of(e.mark, name), "", "YAML syntax error: " + e.msg);
    }
    if (root.IsNull()) return config_node::make_map(origin{name, 1, 1});
    if (!root.IsMap())
        throw config_error(origin_of(root.Mark(), name), "", "the file must hold a map of keys");
    convert_budget budget;
    return convert(root, name, budget, 0);
}

config_node load_with_includes(const std::string& path, std::vector<std::string>& chain) {
    // A path that cannot be resolved (a symlink loop, no permission) is compared as written; reading it
    // below names the problem.
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(fs::path(path), ec).string();
    if (ec) canonical = fs::absolute(fs::path(path), ec).lexically_normal().string();
    if (std::find(chain.begin(), chain.end(), canonical) != chain.end())
        throw config_error(origin{path, 0, 0}, "include", "include cycle through " + path);
    if (chain.size() >= max_include_depth)
        throw config_error(origin{path, 0, 0}, "include",
                           "includes nest deeper than " + std::to_string(max_include_depth) + " files");
    std::string why;
    const std::optional<std::string> text = base::read_input_file(path, why);
    if (!text) throw config_error(origin{path, 0, 0}, "", why);
    config_node self = parse_text(*text, path);

    const config_node::entry* inc = self.find_entry("include");
    if (!inc) return self;
    std::vector<const config_node*> names;
    if (inc->value.is_scalar())
        names.push_back(&inc->value);
    else if (inc->value.is_sequence())
        for (const auto& item : inc->value.items()) names.push_back(&item);
    config_node base = config_node::make_map(self.where());
    chain.push_back(canonical);
    for (const config_node* name : names) {
        if (!name->is_scalar() || name->scalar().empty())
            throw config_error(name->where(), "include", "expected a file path");
        fs::path target = fs::path(path).parent_path() / name->scalar();
        if (!fs::exists(fs::symlink_status(target, ec)))
            throw config_error(name->where(), "include",
                               "included file '" + target.string() + "' does not exist");
        base.merge_from(load_with_includes(target.string(), chain));
    }
    if (names.empty())
        throw config_error(inc->value.where(), "include", "expected a file path or a list of them");
    chain.pop_back();
    self.erase("include");
    base.merge_from(self);
    return base;
}

} // namespace

std::string config_node::to_yaml() const {
    YAML::Emitter out;
    emit(out, *this);
    return std::string(out.c_str()) + "\n";
}

config_node load_yaml_file(const std::string& path) {
    std::vector<std::string> chain;
    return load_with_includes(path, chain);
}

config_node load_yaml_text(const std::string& text, const std::string& name) {
    return parse_text(text, name);
}

namespace {
// A key segment that names a list element: decimal digits only, and small enough to be one (a 20-digit
// index is not an error of ours to throw out of the run).
bool list_index(const std::string& p, std::size_t& idx) {
    if (p.empty() || p.size() > 9 || !std::all_of(p.begin(), p.end(), ::isdigit)) return false;
    idx = static_cast<std::size_t>(std::stoul(p));
    return true;
}
} // namespace

namespace {
// The key path of an override: segments split at dots, where "\\." is a dot inside a segment.
std::vector<std::string> override_segments(const std::string& path, const origin& where) {
    std::vector<std::string> parts(1);
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '\\' && i + 1 < path.size() && path[i + 1] == '.') {
            parts.back() += '.';
            ++i;
        } else if (path[i] == '.') {
            parts.emplace_back();
        } else {
            parts.back() += path[i];
        }
    }
    for (const auto& part : parts)
        if (part.empty()) throw config_error(where, path, "empty key segment");
    return parts;
}

// The key of `map` that segments from `i` name: the longest run whose dotted join is a key there
// ("cpu.max" in a cgroup), else segment `i` alone. `n` is set to the segments it takes.
std::string key_at(const config_node& map, const std::vector<std::string>& parts, std::size_t i, std::size_t& n) {
    std::string key = parts[i], joined = parts[i];
    n = 1;
    if (!map.is_map()) return key;
    for (std::size_t j = i + 1; j < parts.size(); ++j) {
        joined += '.' + parts[j];
        if (map.find(joined)) {
            key = joined;
            n = j - i + 1;
        }
    }
    return key;
}
} // namespace

void apply_override(config_node& root, const std::string& assignment) {
    const origin where{"-p " + assignment, 0, 0};
    std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        throw config_error(where, "", "an override must look like dotted.key=value");
    const std::string path = assignment.substr(0, eq);
    const std::string value = assignment.substr(eq + 1);
    if (const text_problem p = input_text_problem(assignment); !p.what.empty())
        throw config_error(where, "", p.what);
    // "-p seed=" is not "the default seed": an empty value is a mistake (a shell variable that was unset).
    if (value.empty())
        throw config_error(where, path, "an empty value (give a value, or leave the override out for the default)");
    const std::vector<std::string> parts = override_segments(path, where);
    // A flow sequence or map ("[[10,12],[12,10]]") replaces the whole value; anything else is a scalar.
    config_node leaf = config_node::make_scalar(value, where);
    if (!value.empty() && (value.front() == '[' || value.front() == '{')) {
        config_node parsed = load_yaml_text("value: " + value, "-p " + assignment);
        leaf = *parsed.find("value");
    }
    config_node* node = &root;
    for (std::size_t i = 0; i < parts.size();) {
        const std::string& p = parts[i];
        const bool last = i + 1 == parts.size();
        if (node->is_sequence()) {
            std::size_t idx = 0;
            if (!list_index(p, idx) || idx >= node->items().size())
                throw config_error(where, path,
                                   "'" + p + "' is not an index of the list (0.." +
                                       std::to_string(node->items().size()) + ")");
            if (last) {
                node->items()[idx] = leaf;
                return;
            }
            node = &node->items()[idx];
            ++i;
            continue;
        }
        if (!node->is_map() && !node->is_null())
            throw config_error(where, path, "'" + p + "' walks into a plain value");
        // A key with dots in it ("cpu.max") is matched whole when the map has it.
        std::size_t n = 1;
        const std::string key = key_at(*node, parts, i, n);
        if (i + n == parts.size()) {
            node->set(key, leaf, where);
            return;
        }
        config_node* next = node->find(key);
        node = next ? next : &node->set(key, config_node::make_map(where), where);
        i += n;
    }
}

} // namespace warmsched::config
