import StationCore

/// Writes the SQL patch that turns the old bundle of a difference into the new one,
/// in the form the Android client runs (bundle.md, "Incremental patches"):
///
/// - one statement per line, each ending in `;`, no blank lines and no comments
///   (the client runs every joined line as a statement);
/// - literals through `SQLValue.sqlLiteral`, so quotes are doubled and CR/LF are
///   spelled `char(13)`/`char(10)`: no raw newline ever falls inside a literal, and
///   every line holds an even number of `'`;
/// - no BEGIN/COMMIT: the client wraps the whole file in its own transaction, and a
///   BEGIN inside it would fail ("cannot start a transaction within a transaction");
/// - deletes first (children before parents: renumbered_stations, stations_lines,
///   stations, lines, operators), then updates, then inserts (parents first), so the
///   unique (l_id, s_id) index on stations_lines never sees a duplicate on the way;
/// - `INSERT OR IGNORE`, `UPDATE ... WHERE <key>` and `DELETE FROM ... WHERE <key>`,
///   as the real patches do, each valid against the previous version's database;
/// - last, `PRAGMA user_version = N;` (transactional: rolled back with the rest).
package enum PatchWriter {
    package static func patch(from difference: BundleDifference, toVersion version: Int) -> String {
        var out = ""
        let tables = difference.tables

        // A table only the new bundle has (renumbered_stations from an older pipeline).
        for t in tables where t.tableAdded {
            out += createIfMissing(t.shape) + "\n"
        }
        for t in tables.reversed() {
            if t.tableRemoved {
                out += "DROP TABLE IF EXISTS \(t.shape.name);\n"
                continue
            }
            for row in t.removed {
                out += "DELETE FROM \(t.shape.name) WHERE \(whereKey(t.shape, t.shape.key(of: row)));\n"
            }
        }
        for t in tables where !t.tableRemoved {
            for change in t.changed {
                let sets = change.changes.map { "\($0.column) = \($0.new.sqlLiteral)" }.joined(separator: ", ")
                out += "UPDATE \(t.shape.name) SET \(sets) WHERE \(whereKey(t.shape, change.key));\n"
            }
        }
        for t in tables where !t.tableRemoved {
            let head = "INSERT OR IGNORE INTO \(t.shape.name) (\(t.shape.columns.joined(separator: ", "))) VALUES ("
            for row in t.added {
                out += head + row.map(\.sqlLiteral).joined(separator: ", ") + ");\n"
            }
        }
        out += "PRAGMA user_version = \(version);\n"
        return out
    }

    static func whereKey(_ shape: BundleSchema.Table, _ key: [SQLValue]) -> String {
        zip(shape.key, key).map { column, value in
            value == .null ? "\(column) IS NULL" : "\(column) = \(value.sqlLiteral)"
        }.joined(separator: " AND ")
    }

    static func createIfMissing(_ shape: BundleSchema.Table) -> String {
        shape.createSQL.replacing("CREATE TABLE ", with: "CREATE TABLE IF NOT EXISTS ", maxReplacements: 1) + ";"
    }
}
