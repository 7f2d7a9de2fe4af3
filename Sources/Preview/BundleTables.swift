import StationIO
import StationModel

/// What the page needs of one bundle, column by column: a pin per station, the
/// lines as the stations they run through, the operators' names. Columns, not
/// rows, because a national bundle is 10,000 stations and a JSON object per
/// station would repeat every key 10,000 times.
struct BundleTables: Sendable {
    var version = 0
    var operatorIDs: [Int] = [], operatorNames: [String] = []
    var lineIDs: [Int] = [], lineNames: [String] = [], lineOperators: [Int] = [], lineEnabled: [Int] = []
    /// l_type, 0 for NULL (1 is Shinkansen, drawn heavier).
    var lineTypes: [Int] = []
    /// Per line, its stations as indexes into the station columns, in s_sort order.
    var lineStations: [[Int]] = []
    var stationIDs: [Int] = [], names: [String] = [], yomi: [String] = []
    /// Integer micro-degrees, exactly as the bundle holds them (the page's query compares these).
    var lat: [Int] = [], lng: [Int] = []
    var stationOperators: [Int] = [], enabled: [Int] = [], weights: [Int] = []

    /// Reads the tables of bundle.md that the map uses, each in key order, so the
    /// same bundle gives the same columns.
    static func read(path: String) throws -> BundleTables {
        // SQLite would open a missing path as an empty database and fail later, less clearly.
        guard Files.exists(path) else { throw EnvironmentError("cannot read \(path): no such file") }
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        func rows(_ sql: String) throws -> [[SQLValue]] {
            do {
                return try db.query(sql)
            } catch let e as SQLiteError where e.code & 0xFF == 1 {
                // SQLITE_ERROR here is "no such table/column": the file is some other database.
                throw InputError(SourceLocation(file: path), "not a station bundle: \(e.message)")
            } catch let e as SQLiteError where e.isDamage {
                throw InputError(SourceLocation(file: path), "the database is damaged (\(e.message)); expected a whole bundle, as published")
            }
        }
        var t = BundleTables()
        t.version = try db.userVersion
        for r in try rows("SELECT o_id, operator FROM operators ORDER BY o_id") {
            t.operatorIDs.append(r[0].intValue ?? 0); t.operatorNames.append(r[1].textValue ?? "")
        }
        var lineIndex: [Int: Int] = [:]
        for r in try rows("SELECT l_id, line, o_id, enabled, l_type FROM lines ORDER BY l_id") {
            let id = r[0].intValue ?? 0
            lineIndex[id] = t.lineIDs.count
            t.lineIDs.append(id); t.lineNames.append(r[1].textValue ?? ""); t.lineOperators.append(r[2].intValue ?? 0)
            t.lineEnabled.append(r[3].intValue ?? 0); t.lineTypes.append(r[4].intValue ?? 0)
        }
        var stationIndex: [Int: Int] = [:]
        for r in try rows("SELECT s_id, station, yomi, lat, lng, o_id, enabled, weight FROM stations ORDER BY s_id") {
            let id = r[0].intValue ?? 0
            stationIndex[id] = t.stationIDs.count
            t.stationIDs.append(id); t.names.append(r[1].textValue ?? ""); t.yomi.append(r[2].textValue ?? "")
            t.lat.append(r[3].intValue ?? 0); t.lng.append(r[4].intValue ?? 0)
            t.stationOperators.append(r[5].intValue ?? 0); t.enabled.append(r[6].intValue ?? 0); t.weights.append(r[7].intValue ?? 0)
        }
        t.lineStations = Array(repeating: [], count: t.lineIDs.count)
        // s_id breaks a tie in s_sort so two builds of one bundle draw the same polyline.
        for r in try rows("SELECT l_id, s_id FROM stations_lines ORDER BY l_id, s_sort, s_id") {
            // A row naming a line or station the bundle lacks has nowhere to be drawn; verify reports it.
            guard let line = r[0].intValue.flatMap({ lineIndex[$0] }), let station = r[1].intValue.flatMap({ stationIndex[$0] }) else { continue }
            t.lineStations[line].append(station)
        }
        return t
    }

    /// The page's JSON for this side; `label` says which bundle it is.
    func json(label: String) -> String {
        let j = JSONText()
        j.object {
            j.member("label") { j.string(label) }
            j.member("version") { j.int(version) }
            j.member("operators") {
                j.object {
                    j.member("id") { j.ints(operatorIDs) }
                    j.member("name") { j.strings(operatorNames) }
                }
            }
            j.member("lines") {
                j.object {
                    j.member("id") { j.ints(lineIDs) }
                    j.member("name") { j.strings(lineNames) }
                    j.member("operator") { j.ints(lineOperators) }
                    j.member("enabled") { j.ints(lineEnabled) }
                    j.member("type") { j.ints(lineTypes) }
                    j.member("stations") { j.array(lineStations) { j.ints($0) } }
                }
            }
            j.member("stations") {
                j.object {
                    j.member("id") { j.ints(stationIDs) }
                    j.member("name") { j.strings(names) }
                    j.member("yomi") { j.strings(yomi) }
                    j.member("lat") { j.ints(lat) }
                    j.member("lng") { j.ints(lng) }
                    j.member("operator") { j.ints(stationOperators) }
                    j.member("enabled") { j.ints(enabled) }
                    j.member("weight") { j.ints(weights) }
                }
            }
        }
        return j.text
    }
}

/// JSON written member by member in the order the code gives, so the page's bytes
/// depend only on the bundles (no dictionary order), and safe inside a <script>
/// element: "<", ">" and "&" are escaped, so no value can close the element.
/// A class, so the closures that write an object's members can write to it too.
final class JSONText {
    var text = ""
    private var needsComma = [false]

    private func separate() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }

    func object(_ body: () -> Void) {
        separate()
        text += "{"
        needsComma.append(false)
        body()
        needsComma.removeLast()
        text += "}"
    }

    func member(_ key: String, _ value: () -> Void) {
        separate()
        text += Self.quoted(key) + ":"
        // The value that follows is this member's, not a new element of the object.
        needsComma[needsComma.count - 1] = false
        value()
        needsComma[needsComma.count - 1] = true
    }

    func array<T>(_ items: [T], _ each: (T) -> Void) {
        separate()
        text += "["
        needsComma.append(false)
        for item in items { each(item) }
        needsComma.removeLast()
        text += "]"
    }

    func ints(_ values: [Int]) {
        separate()
        text += "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    func strings(_ values: [String]) {
        separate()
        text += "[" + values.map(Self.quoted).joined(separator: ",") + "]"
    }

    func int(_ v: Int) { separate(); text += String(v) }
    func double(_ v: Double, decimals: Int) { separate(); text += Self.fixed(v, decimals) }
    func string(_ s: String) { separate(); text += Self.quoted(s) }
    func null() { separate(); text += "null" }
    func raw(_ json: String) { separate(); text += json }

    /// A number with a fixed count of decimals, without Foundation's locale or Double's shortest form.
    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let n = Int((abs(v) * scale).rounded())
        let sign = v < 0 && n != 0 ? "-" : ""
        let unit = Int(scale)
        guard decimals > 0 else { return sign + String(n) }
        let fraction = String(n % unit)
        return sign + String(n / unit) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += "\\u" + hex4(u.value)
            default:
                if u.value < 0x20 { out += "\\u" + hex4(u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    private static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
}
