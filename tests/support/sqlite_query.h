// Reads a sweep's results.db in tests with SQLite's own API (not warmsched's sweep_db), so that what the
// database holds is checked independently of the code that wrote it.
#pragma once

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <string>
#include <vector>

namespace warmsched::test {

using sql_rows = std::vector<std::vector<std::string>>;

// Every row of `sql` as text (NULL as "NULL").
inline sql_rows query(const std::string& db_file, const std::string& sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(db_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_busy_timeout(db, 30000);
    sqlite3_stmt* st = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
    sql_rows rows;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
            const unsigned char* t = sqlite3_column_text(st, c);
            row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
        }
        rows.push_back(std::move(row));
    }
    CHECK(rc == SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rows;
}

inline long long query_number(const std::string& db_file, const std::string& sql) {
    const sql_rows r = query(db_file, sql);
    REQUIRE(r.size() == 1);
    return std::stoll(r[0][0]);
}

} // namespace warmsched::test
