import CSQLite
import Foundation

extension SQLiteStatement {
    /// Whether column `i` of this statement's current row holds the same value as
    /// column `j` of `other`'s, as SQL's IS compares them (NULL IS NULL, 5 IS 5.0,
    /// text and blobs by bytes), without building Swift values: for diffs that
    /// stream two tables side by side and look closely only at rows that differ.
    public func sameValue(_ i: Int, as other: SQLiteStatement, _ j: Int) -> Bool {
        let a = stmt, b = other.stmt, ci = Int32(i), cj = Int32(j)
        let ta = sqlite3_column_type(a, ci), tb = sqlite3_column_type(b, cj)
        switch (ta, tb) {
        case (SQLITE_NULL, SQLITE_NULL):
            return true
        case (SQLITE_INTEGER, SQLITE_INTEGER):
            return sqlite3_column_int64(a, ci) == sqlite3_column_int64(b, cj)
        case (SQLITE_INTEGER, SQLITE_FLOAT), (SQLITE_FLOAT, SQLITE_INTEGER), (SQLITE_FLOAT, SQLITE_FLOAT):
            return sqlite3_column_double(a, ci) == sqlite3_column_double(b, cj)
        case (SQLITE_TEXT, SQLITE_TEXT), (SQLITE_BLOB, SQLITE_BLOB):
            let pa = ta == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(a, ci)) : sqlite3_column_blob(a, ci)
            let pb = tb == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(b, cj)) : sqlite3_column_blob(b, cj)
            let na = sqlite3_column_bytes(a, ci), nb = sqlite3_column_bytes(b, cj)
            guard na == nb else { return false }
            guard na > 0, let pa, let pb else { return true }
            return memcmp(pa, pb, Int(na)) == 0
        default:
            return false
        }
    }
}
