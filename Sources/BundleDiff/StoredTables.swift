import FoundationEssentials
import Glibc
import StationModel

/// A database file's pages, to tell from the bytes alone that a table holds the
/// same rows in two files. A rowid table's rows are exactly the cells of its
/// b-tree's leaf pages, in rowid order, and a leaf page holds no page number
/// (unless a row spills onto overflow pages): two trees whose leaf pages are the
/// same bytes, one for one, hold the same rows with the same rowids, wherever
/// those pages lie in either file. Two builds write an unchanged table that way,
/// and comparing its ~40 pages is far cheaper than its ~10,000 rows in SQL
/// (stations_lines was a third of a national diff). Any doubt (WAL mode, a
/// journal beside the file, a page not as expected, a spilled row) gives "not
/// known to be the same", and the rows are compared in SQL.
struct StoredTables {
    private let bytes: Data
    private let pageSize: Int
    private let usable: Int
    private let pageCount: Int
    /// The text encoding (1 UTF-8, 2 and 3 UTF-16): the same bytes are the same text only in the same one.
    private let encoding: UInt32

    /// Nil when the file cannot be mapped or is not a database in rollback-journal
    /// mode with no journal beside it (its bytes might not be what SQLite reads).
    init?(path: String) {
        guard !FileManager.default.fileExists(atPath: path + "-journal"), !FileManager.default.fileExists(atPath: path + "-wal"),
              let bytes = MappedFile.data(path: path), bytes.count >= 100 else { return nil }
        let header: (magic: Bool, pageSize: Int, read: UInt8, write: UInt8, reserved: Int, encoding: UInt32) = bytes.withUnsafeBytes { b in
            (b.starts(with: Array("SQLite format 3\0".utf8)), Int(b[16]) << 8 | Int(b[17]), b[18], b[19], Int(b[20]),
             UInt32(b[56]) << 24 | UInt32(b[57]) << 16 | UInt32(b[58]) << 8 | UInt32(b[59]))
        }
        let pageSize = header.pageSize == 1 ? 65_536 : header.pageSize
        guard header.magic, header.read == 1, header.write == 1, pageSize >= 512, pageSize <= 65_536,
              pageSize & (pageSize - 1) == 0, pageSize - header.reserved >= 480 else { return nil }
        self.bytes = bytes
        self.pageSize = pageSize
        usable = pageSize - header.reserved
        pageCount = bytes.count / pageSize
        encoding = header.encoding
    }

    /// True when the rowid tables rooted at `root` here and at `otherRoot` in
    /// `other` have leaf pages with the same bytes, none with a spilled row.
    func sameRows(root: Int, as other: StoredTables, root otherRoot: Int) -> Bool {
        guard pageSize == other.pageSize, usable == other.usable, encoding == other.encoding,
              let mine = leaves(root: root), let theirs = other.leaves(root: otherRoot), mine.count == theirs.count else { return false }
        return bytes.withUnsafeBytes { a in
            other.bytes.withUnsafeBytes { b in
                for (p, q) in zip(mine, theirs) {
                    guard memcmp(a.baseAddress! + (p - 1) * pageSize, b.baseAddress! + (q - 1) * pageSize, pageSize) == 0,
                          !spills(leaf: p, in: a) else { return false }
                }
                return true
            }
        }
    }

    /// The leaf pages of the table b-tree rooted at `root`, in key order; nil for
    /// anything but a well-formed table b-tree (an index, a loop, a page out of range).
    func leaves(root: Int) -> [Int]? {
        bytes.withUnsafeBytes { b -> [Int]? in
            func u16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
            func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
            var leaves: [Int] = []
            var visited = 0
            // Pages still to visit, the next on top: children pushed right to left.
            var stack = [(page: root, depth: 0)]
            while let (page, depth) = stack.popLast() {
                visited += 1
                // Page 1 is the schema's root and never a table's page.
                guard page >= 2, page <= pageCount, depth < 64, visited <= pageCount else { return nil }
                let base = (page - 1) * pageSize
                switch b[base] {
                case 0x0D:
                    leaves.append(page)
                case 0x05:
                    let cells = u16(base + 3)
                    guard 12 + 2 * cells <= usable else { return nil }
                    stack.append((u32(base + 8), depth + 1))
                    for i in stride(from: cells - 1, through: 0, by: -1) {
                        let cell = u16(base + 12 + 2 * i)
                        guard cell >= 12 + 2 * cells, cell + 4 <= usable else { return nil }
                        stack.append((u32(base + cell), depth + 1))
                    }
                default:
                    return nil
                }
            }
            return leaves
        }
    }

    /// Whether a cell of leaf `page` holds more payload than fits on the page (the
    /// rest is on overflow pages, which a comparison of the leaf does not cover),
    /// or the page is not as expected.
    private func spills(leaf page: Int, in b: UnsafeRawBufferPointer) -> Bool {
        let base = (page - 1) * pageSize
        let cells = Int(b[base + 3]) << 8 | Int(b[base + 4])
        guard 8 + 2 * cells <= usable else { return true }
        let maxLocal = usable - 35
        for i in 0..<cells {
            var at = base + (Int(b[base + 8 + 2 * i]) << 8 | Int(b[base + 9 + 2 * i]))
            guard at < base + usable else { return true }
            // The payload's size, a varint of at most 9 bytes.
            var payload = 0
            for k in 0..<9 {
                guard at < base + usable else { return true }
                let byte = Int(b[at]); at += 1
                if k == 8 { payload = payload << 8 | byte; break }
                payload = payload << 7 | (byte & 0x7F)
                if byte < 0x80 { break }
            }
            if payload > maxLocal { return true }
        }
        return false
    }
}
