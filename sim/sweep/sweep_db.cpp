// The sweep's SQLite database; see sweep_db.h.
#include "sim/sweep/sweep_db.h"
#include "base/files/output_file.h"

#include "platforms/config/config_error.h"

#include <sqlite3.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

namespace {
constexpr const char* schema = R"(
CREATE TABLE IF NOT EXISTS sweep(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id TEXT PRIMARY KEY,
  run_index INTEGER NOT NULL UNIQUE,
  point INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK(status IN ('pending','running','complete','failed')),
  dir TEXT NOT NULL,
  command_line TEXT,
  build_commit TEXT,
  host TEXT,
  pid INTEGER,
  exit_status INTEGER,
  wall_s REAL,
  started TEXT,
  finished TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  stats_rows INTEGER,
  metrics_rows INTEGER);
CREATE TABLE IF NOT EXISTS params(run_id TEXT NOT NULL REFERENCES runs(id), key TEXT NOT NULL,
  value TEXT NOT NULL, PRIMARY KEY(run_id, key));
CREATE TABLE IF NOT EXISTS stats(run_id TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  value REAL NOT NULL, PRIMARY KEY(run_id, name));
CREATE TABLE IF NOT EXISTS metrics(run_id TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  value REAL NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(run_id, name));
)";

// A full disk or an I/O error writing the database is the machine's failure (exit 1, base::write_error);
// anything else SQLite refuses is told as the user's error.
[[noreturn]] void database_failed(sqlite3* db, const std::string& file, const std::string& why) {
    const int code = sqlite3_errcode(db) & 0xff;
    if (code == SQLITE_FULL || code == SQLITE_IOERR) throw base::write_error(file, why);
    throw config::config_error(std::vector<std::string>{file + ": " + why});
}

// One prepared statement; binds by position, steps, resets.
class statement {
public:
    statement(sqlite3* db, const std::string& sql, const std::string& file) : db_(db), file_(file) {
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) failed();
    }
    ~statement() { sqlite3_finalize(st_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    statement& bind(int i, const std::string& v) {
        sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    statement& bind(int i, long long v) {
        sqlite3_bind_int64(st_, i, v);
        return *this;
    }
    statement& bind(int i, double v) {
        sqlite3_bind_double(st_, i, v);
        return *this;
    }
    // True while there is a row.
    bool step() {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW) return true;
        if (rc != SQLITE_DONE) failed();
        return false;
    }
    void run() {
        step();
        sqlite3_reset(st_);
        sqlite3_clear_bindings(st_);
    }
    std::string text(int col) const {
        const unsigned char* t = sqlite3_column_text(st_, col);
        return t ? reinterpret_cast<const char*>(t) : "";
    }
    long long integer(int col) const { return sqlite3_column_int64(st_, col); }
    double real(int col) const { return sqlite3_column_double(st_, col); }

private:
    [[noreturn]] void failed() { database_failed(db_, file_, sqlite3_errmsg(db_)); }
    sqlite3* db_;
    sqlite3_stmt* st_ = nullptr;
    std::string file_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when left by an exception.
class transaction {
public:
    explicit transaction(sweep_db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
    ~transaction() {
        if (!done_) try {
                db_.exec("ROLLBACK");
            } catch (...) {
            }
    }
    void commit() {
        db_.exec("COMMIT");
        done_ = true;
    }

private:
    sweep_db& db_;
    bool done_ = false;
};
} // namespace

sweep_db::sweep_db(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
        const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw config::config_error(std::vector<std::string>{path + ": cannot open the sweep database: " + why});
    }
    sqlite3_busy_timeout(db_, 120000);
    try {
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        exec(schema);
        // A database of an earlier warmsched has no row counts: add the columns (NULL for its runs), in one
        // transaction, so that a process opening it at the same moment finds both or neither.
        auto has_counts = [&] {
            statement cols(db_, "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'metrics_rows'", path_);
            return cols.step() && cols.integer(0) > 0;
        };
        if (!has_counts()) {
            exec("BEGIN IMMEDIATE");
            if (!has_counts())
                exec("ALTER TABLE runs ADD COLUMN stats_rows INTEGER; ALTER TABLE runs ADD COLUMN metrics_rows INTEGER");
            exec("COMMIT");
        }
    } catch (...) { // not a database ("file is not a database"): no destructor runs for a half-made object
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

sweep_db::~sweep_db() {
    sqlite3_close(db_);
}

void sweep_db::exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
        const std::string why = msg ? msg : sqlite3_errmsg(db_);
        sqlite3_free(msg);
        database_failed(db_, path_, why);
    }
}

std::optional<std::string> sweep_db::value(const std::string& key) {
    statement s(db_, "SELECT value FROM sweep WHERE key = ?", path_);
    s.bind(1, key);
    if (s.step()) return s.text(0);
    return std::nullopt;
}

void sweep_db::set_value(const std::string& key, const std::string& value) {
    statement(db_, "INSERT OR REPLACE INTO sweep(key, value) VALUES(?, ?)", path_).bind(1, key).bind(2, value).run();
}

void sweep_db::erase_value(const std::string& key) {
    statement(db_, "DELETE FROM sweep WHERE key = ?", path_).bind(1, key).run();
}

void sweep_db::adopt_grid(const std::string& canonical_text, const std::string& sweep_dir) {
    transaction t(*this);
    const auto had = value("grid");
    if (had && *had != canonical_text) {
        // The first line that differs names the change.
        std::size_t a = 0, b = 0;
        std::string la, lb;
        while (a < had->size() || b < canonical_text.size()) {
            const std::size_t ea = had->find('\n', a), eb = canonical_text.find('\n', b);
            la = had->substr(a, ea - a);
            lb = canonical_text.substr(b, eb - b);
            if (la != lb) break;
            a = ea == std::string::npos ? had->size() : ea + 1;
            b = eb == std::string::npos ? canonical_text.size() : eb + 1;
        }
        throw config::config_error(std::vector<std::string>{
            "sweep: " + sweep_dir + " holds another sweep (its grid has '" + la + "' where this one has '" + lb +
            "'); give another out: directory or remove that one"});
    }
    if (!had) set_value("grid", canonical_text);
    t.commit();
}

void sweep_db::add_runs(const std::vector<sweep_run>& runs, const std::string& sweep_dir) {
    transaction t(*this);
    statement run(db_,
                  "INSERT OR IGNORE INTO runs(id, run_index, point, seed, status, dir) VALUES(?, ?, ?, ?, "
                  "'pending', ?)",
                  path_);
    statement param(db_, "INSERT OR IGNORE INTO params(run_id, key, value) VALUES(?, ?, ?)", path_);
    for (const auto& r : runs) {
        run.bind(1, r.id)
            .bind(2, static_cast<long long>(r.index))
            .bind(3, static_cast<long long>(r.point))
            .bind(4, static_cast<long long>(r.seed))
            .bind(5, (fs::path(sweep_dir) / "runs" / r.id).string())
            .run();
        for (const auto& o : r.overrides) {
            const std::size_t eq = o.find('=');
            param.bind(1, r.id).bind(2, o.substr(0, eq)).bind(3, o.substr(eq + 1)).run();
        }
        for (const auto& [k, v] : r.axis) param.bind(1, r.id).bind(2, k).bind(3, v).run(); // placeholders
    }
    t.commit();
}

bool sweep_db::claim(const std::string& id, long pid, const std::string& host, const std::string& command_line,
                     const std::string& build_commit, const std::string& started) {
    transaction t(*this);
    statement q(db_, "SELECT status FROM runs WHERE id = ?", path_);
    q.bind(1, id);
    if (!q.step())
        throw config::config_error(std::vector<std::string>{path_ + ": no run " + id + " in the sweep"});
    if (q.text(0) == "complete") return false;
    statement(db_,
              "UPDATE runs SET status = 'running', pid = ?, host = ?, command_line = ?, build_commit = ?, "
              "started = ?, finished = NULL, wall_s = NULL, exit_status = NULL, attempts = attempts + 1 "
              "WHERE id = ?",
              path_)
        .bind(1, static_cast<long long>(pid))
        .bind(2, host)
        .bind(3, command_line)
        .bind(4, build_commit)
        .bind(5, started)
        .bind(6, id)
        .run();
    t.commit();
    return true;
}

void sweep_db::complete(const std::string& id, const run_result& r) {
    transaction t(*this);
    statement(db_, "DELETE FROM stats WHERE run_id = ?", path_).bind(1, id).run();
    statement(db_, "DELETE FROM metrics WHERE run_id = ?", path_).bind(1, id).run();
    statement stat(db_, "INSERT INTO stats(run_id, name, value) VALUES(?, ?, ?)", path_);
    for (const auto& [name, v] : r.stats) stat.bind(1, id).bind(2, name).bind(3, v).run();
    statement metric(db_, "INSERT OR REPLACE INTO metrics(run_id, name, value, seq) VALUES(?, ?, ?, ?)", path_);
    long long seq = 0;
    for (const auto& [name, v] : r.metrics) metric.bind(1, id).bind(2, name).bind(3, v).bind(4, seq++).run();
    statement(db_,
              "UPDATE runs SET status = 'complete', exit_status = 0, wall_s = ?, finished = ?, stats_rows = (SELECT "
              "COUNT(*) FROM stats WHERE run_id = ?3), metrics_rows = (SELECT COUNT(*) FROM metrics WHERE run_id = "
              "?3) WHERE id = ?3",
              path_)
        .bind(1, r.wall_s)
        .bind(2, r.finished)
        .bind(3, id)
        .run();
    t.commit();
}

std::vector<sweep_db::damaged_run> sweep_db::damaged_runs() {
    // A run without stats rows, or with fewer than it completed with (NULL: a database of an earlier
    // warmsched, which did not count them).
    statement s(db_,
                "SELECT id, s, IFNULL(stats_rows, -1), m, IFNULL(metrics_rows, -1) FROM (SELECT id, stats_rows, "
                "metrics_rows, run_index, (SELECT COUNT(*) FROM stats WHERE run_id = runs.id) AS s, (SELECT "
                "COUNT(*) FROM metrics WHERE run_id = runs.id) AS m FROM runs WHERE status = 'complete') WHERE s = 0 "
                "OR (stats_rows IS NOT NULL AND s != stats_rows) OR (metrics_rows IS NOT NULL AND m != "
                "metrics_rows) ORDER BY run_index",
                path_);
    std::vector<damaged_run> out;
    while (s.step()) {
        damaged_run d;
        d.id = s.text(0);
        const long long stats = s.integer(1), stats_rows = s.integer(2), metrics = s.integer(3),
                        metrics_rows = s.integer(4);
        if (stats == 0 || (stats_rows >= 0 && stats != stats_rows))
            d.what = (stats_rows >= 0 ? std::to_string(stats_rows - stats) + " of its " + std::to_string(stats_rows)
                                      : std::string("all its")) +
                     " stats rows are missing";
        else
            d.what = std::to_string(metrics_rows - metrics) + " of its " + std::to_string(metrics_rows) +
                     " metrics rows are missing";
        out.push_back(d);
    }
    return out;
}

void sweep_db::redo(const std::string& id) {
    transaction t(*this);
    statement(db_, "DELETE FROM stats WHERE run_id = ?", path_).bind(1, id).run();
    statement(db_, "DELETE FROM metrics WHERE run_id = ?", path_).bind(1, id).run();
    statement(db_, "UPDATE runs SET status = 'pending', pid = NULL, stats_rows = NULL, metrics_rows = NULL WHERE id = ?",
              path_)
        .bind(1, id)
        .run();
    t.commit();
}

void sweep_db::fail(const std::string& id, int exit_status, const std::string& finished) {
    statement(db_, "UPDATE runs SET status = 'failed', exit_status = ?, finished = ? WHERE id = ? AND status != "
                   "'complete'",
              path_)
        .bind(1, static_cast<long long>(exit_status))
        .bind(2, finished)
        .bind(3, id)
        .run();
}

void sweep_db::reset_to_pending(const std::string& id) {
    statement(db_, "UPDATE runs SET status = 'pending', pid = NULL WHERE id = ? AND status != 'complete'", path_)
        .bind(1, id)
        .run();
}

std::vector<run_row> sweep_db::rows() {
    statement s(db_, "SELECT id, run_index, point, seed, status, IFNULL(host, ''), IFNULL(pid, 0), dir FROM runs "
                     "ORDER BY run_index",
                path_);
    std::vector<run_row> out;
    while (s.step()) {
        run_row r;
        r.id = s.text(0);
        r.index = static_cast<std::size_t>(s.integer(1));
        r.point = static_cast<std::size_t>(s.integer(2));
        r.seed = static_cast<std::uint64_t>(s.integer(3));
        r.status = s.text(4);
        r.host = s.text(5);
        r.pid = static_cast<long>(s.integer(6));
        r.dir = s.text(7);
        out.push_back(r);
    }
    return out;
}

std::pair<std::size_t, std::size_t> sweep_db::run_counts() {
    statement s(db_, "SELECT COUNT(*), IFNULL(SUM(status = 'complete'), 0) FROM runs", path_);
    s.step();
    return {static_cast<std::size_t>(s.integer(0)), static_cast<std::size_t>(s.integer(1))};
}

sweep_db::status_counts sweep_db::counts_by_status() {
    statement s(db_,
                "SELECT IFNULL(SUM(status = 'pending'), 0), IFNULL(SUM(status = 'running'), 0), "
                "IFNULL(SUM(status = 'complete'), 0), IFNULL(SUM(status = 'failed'), 0) FROM runs",
                path_);
    s.step();
    return {static_cast<std::size_t>(s.integer(0)), static_cast<std::size_t>(s.integer(1)),
            static_cast<std::size_t>(s.integer(2)), static_cast<std::size_t>(s.integer(3))};
}

std::vector<sweep_db::point_samples> sweep_db::complete_metrics() {
    std::vector<point_samples> out;
    std::map<std::size_t, std::size_t> at; // point -> index in out
    {
        // A point's label: its params that vary in the grid (the axes), from its first run.
        statement s(db_,
                    "SELECT r.point, p.key, p.value FROM runs r JOIN params p ON p.run_id = r.id "
                    "WHERE r.status = 'complete' AND p.key != 'seed' AND p.key IN (SELECT key FROM params "
                    "GROUP BY key HAVING COUNT(DISTINCT value) > 1) AND r.seed = (SELECT MIN(seed) FROM runs "
                    "r2 WHERE r2.point = r.point AND r2.status = 'complete') ORDER BY r.point, p.rowid",
                    path_);
        while (s.step()) {
            const auto point = static_cast<std::size_t>(s.integer(0));
            if (!at.count(point)) {
                at[point] = out.size();
                out.push_back({point, "", {}, {}});
            }
            std::string& l = out[at[point]].label;
            l += (l.empty() ? "" : " ") + s.text(1) + "=" + s.text(2);
            out[at[point]].axes.emplace_back(s.text(1), s.text(2));
        }
    }
    statement s(db_,
                "SELECT r.point, m.name, m.value FROM runs r JOIN metrics m ON m.run_id = r.id WHERE r.status = "
                "'complete' ORDER BY r.point, r.seed, m.seq",
                path_);
    while (s.step()) {
        const auto point = static_cast<std::size_t>(s.integer(0));
        if (!at.count(point)) {
            at[point] = out.size();
            out.push_back({point, "", {}, {}});
        }
        auto& ms = out[at[point]].metrics;
        const std::string name = s.text(1);
        auto it = std::find_if(ms.begin(), ms.end(), [&](const auto& p) { return p.first == name; });
        if (it == ms.end()) {
            ms.emplace_back(name, std::vector<double>{});
            it = ms.end() - 1;
        }
        it->second.push_back(s.real(2));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.point < b.point; });
    return out;
}

} // namespace warmsched::sim::sweep
