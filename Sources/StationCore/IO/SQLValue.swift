/// A value as SQLite stores it: one of its five storage classes.
package enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let s): return s
        case .blob(let b): return "x'" + hex(b) + "'"
        }
    }

    package var intValue: Int? {
        switch self {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(exactly: v.rounded(.towardZero))
        case .text(let s): return Int(s)
        default: return nil
        }
    }

    package var textValue: String? {
        switch self {
        case .text(let s): return s
        case .null: return nil
        default: return description
        }
    }

    /// Whether SQL's IS would call the two equal: NULL IS NULL, 5 IS 5.0, text and blobs by bytes.
    package func isSame(as other: SQLValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .real(let b)): return Double(a) == b
        case (.real(let a), .integer(let b)): return a == Double(b)
        default: return self == other
        }
    }

    /// The value as an SQL literal on one line: quotes doubled, and CR and LF
    /// spelled with char(), because the Android client splits statements at line ends.
    package var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return v.isFinite ? "\(v)" : "NULL"
        case .blob(let b): return "X'" + hex(b) + "'"
        case .text(let s):
            var parts: [String] = [], current = "'"
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\n", "\r": parts += [current + "'", scalar == "\n" ? "char(10)" : "char(13)"]; current = "'"
                case "'": current += "''"
                default: current.unicodeScalars.append(scalar)
                }
            }
            parts.append(current + "'")
            return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: "||") + ")"
        }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// A row of `SQLiteDatabase.rows`: its values by position or by column name.
package struct SQLiteRow: Hashable, Sendable {
    package let columns: [String]
    package let values: [SQLValue]

    package subscript(_ index: Int) -> SQLValue { values[index] }

    /// The value of the column `name`; a name the query does not return is a mistake in the query.
    package subscript(_ name: String) -> SQLValue {
        guard let index = columns.firstIndex(of: name) else { preconditionFailure("no column \(name) in \(columns)") }
        return values[index]
    }
}
