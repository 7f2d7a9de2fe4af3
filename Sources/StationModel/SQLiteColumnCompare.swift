import CSQLite
import FoundationEssentials
import Glibc

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

extension SQLiteStatement {
    /// Whether the first `width` columns of this statement's current row equal those
    /// of `other`'s, column by column as `sameValue` compares them. Each column is
    /// fetched once per side as an sqlite3_value, whose accessors take no connection
    /// mutex: a national diff compares some 200,000 columns, and the per-call locking
    /// of sqlite3_column_* was a third of its time.
    public func sameRow(as other: SQLiteStatement, width: Int) -> Bool {
        let a = stmt, b = other.stmt
        var i: Int32 = 0
        let n = Int32(width)
        while i < n {
            guard Self.same(sqlite3_column_value(a, i), sqlite3_column_value(b, i)) else { return false }
            i += 1
        }
        return true
    }

    /// Orders this row against `other`'s by the key columns `keys` when every one is an
    /// INTEGER on both sides (the bundle's keys are); nil otherwise, for the caller's
    /// general comparison.
    public func compareIntegerKey(_ keys: [Int], with other: SQLiteStatement) -> Int? {
        let a = stmt, b = other.stmt
        for k in keys {
            let va = sqlite3_column_value(a, Int32(k)), vb = sqlite3_column_value(b, Int32(k))
            guard sqlite3_value_type(va) == SQLITE_INTEGER, sqlite3_value_type(vb) == SQLITE_INTEGER else { return nil }
            let x = sqlite3_value_int64(va), y = sqlite3_value_int64(vb)
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    private static func same(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
        let ta = sqlite3_value_type(a), tb = sqlite3_value_type(b)
        switch (ta, tb) {
        case (SQLITE_NULL, SQLITE_NULL):
            return true
        case (SQLITE_INTEGER, SQLITE_INTEGER):
            return sqlite3_value_int64(a) == sqlite3_value_int64(b)
        case (SQLITE_INTEGER, SQLITE_FLOAT), (SQLITE_FLOAT, SQLITE_INTEGER), (SQLITE_FLOAT, SQLITE_FLOAT):
            return sqlite3_value_double(a) == sqlite3_value_double(b)
        case (SQLITE_TEXT, SQLITE_TEXT), (SQLITE_BLOB, SQLITE_BLOB):
            let pa = ta == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_value_text(a)) : sqlite3_value_blob(a)
            let pb = tb == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_value_text(b)) : sqlite3_value_blob(b)
            let na = sqlite3_value_bytes(a), nb = sqlite3_value_bytes(b)
            guard na == nb else { return false }
            guard na > 0, let pa, let pb else { return true }
            return memcmp(pa, pb, Int(na)) == 0
        default:
            return false
        }
    }
}
