import StationCore

/// What a new version changes, one entry per thing a maintainer reviews: a station
/// moved (and how far), renamed, given another weight, added, disabled; a line or
/// an operator added, renamed or switched off; a station joining or leaving a line.
/// One changed row can give several entries (moved and renamed). `stationdb plan`
/// prints it; the guards and the counts stay in DiffSummary.
package struct ChangeList: Sendable {
    package enum Kind: String, Sendable, CaseIterable, Codable {
        case added, removed, moved, renamed, weight, disabled, reenabled, changed
    }

    package struct Entry: Sendable, Equatable, Codable {
        /// stations, lines, operators, stations_lines or renumbered_stations.
        package var table: String
        package var kind: Kind
        /// s_id, l_id or o_id (for stations_lines the s_id, for renumbered_stations the new s_id).
        package var id: Int
        /// The row's name as published after the change (before it, for a removed row).
        package var name: String
        /// The old and new value, as a reader wants them (coordinates as "lat lng" in degrees).
        package var old: String?
        package var new: String?
        /// How far a moved station went.
        package var metres: Double?
        /// Why (ChangeCauses): "raw/fixes.csv:3", "upstream v20260227 -> v20260529",
        /// "raw/weights.csv", "machine weights"; nil when no causes were worked out.
        package var cause: String?
        /// A weight the reports list in a group by its cause rather than one line each: machine
        /// weights drawn again because of the other changes (so a closure does not bury itself
        /// under its neighbours' weights), and hand weights moved between levels (a re-tier).
        package var follows: Bool?
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    package static let tableOrder = BundleSchema.reviewOrder

    /// The changes of `difference` from `baseline` to the bundle at `database`, each with its
    /// cause by the staging file's facts (`meta`): what a build, a plan and its report list.
    package init(_ difference: BundleDifference, from baseline: Baseline, to database: String, meta: [String: String]) throws {
        self.init(try DiffReport.make(difference, oldPath: baseline.databasePath, newPath: database), causes: ChangeCauses(meta: meta, baseline: baseline.bundle))
    }

    /// The changes of `report`, each with its cause when `causes` are given.
    package init(_ report: DiffReport, causes: ChangeCauses? = nil) {
        var entries: [Entry] = []
        let d = report.difference
        // The s_ids a renumbering of this version retires and gives: raw/renumbered.csv's doing.
        let renumbered = Set((d[BundleSchema.renumberedStations.name]?.added ?? []).flatMap { [$0[0].intValue, $0[1].intValue].compactMap { $0 } })
        for name in Self.tableOrder {
            guard let t = d[name] else { continue }
            let shape = t.shape
            func id(_ row: [SQLValue]) -> Int { shape.key(of: row).last?.intValue ?? 0 }
            func entry(_ kind: Kind, _ row: [SQLValue], side: DiffReport.Side, old: String? = nil, new: String? = nil, metres: Double? = nil,
                       columns: Set<String> = []) -> Entry {
                let key = name == "renumbered_stations" ? (row[0].intValue ?? 0) : id(row)
                var cause: String?
                if let causes {
                    let station = name == "stations" || name == "stations_lines" ? shape.columns.firstIndex(of: "s_id").flatMap { row[$0].intValue } : nil
                    switch name {
                    case "renumbered_stations": cause = ChangeCauses.renumbered
                    case _ where (kind == .added || kind == .removed) && station.map(renumbered.contains) == true: cause = ChangeCauses.renumbered
                    case "operators", "lines", "stations": cause = causes.cause(name, key, columns)
                    default: cause = causes.sources ?? causes.otherwise
                    }
                }
                return Entry(table: name, kind: kind, id: key, name: report.name(of: row, in: shape, side: side), old: old, new: new,
                             metres: metres, cause: cause)
            }
            for row in t.added { entries.append(entry(.added, row, side: .new)) }
            for row in t.removed { entries.append(entry(.removed, row, side: .old)) }
            let nameColumn = ["stations": "station", "lines": "line", "operators": "operator"][name]
            for change in t.changed {
                var rest: [ColumnChange] = []
                var moved = false
                for c in change.changes {
                    switch c.column {
                    case "lat" where name == "stations", "lng" where name == "stations":
                        moved = true
                    case nameColumn:
                        entries.append(entry(.renamed, change.new, side: .new, old: c.old.textValue, new: c.new.textValue, columns: [c.column]))
                    case "weight" where name == "stations":
                        entries.append(entry(.weight, change.new, side: .new, old: c.old.description, new: c.new.description, columns: [c.column]))
                    case "enabled":
                        entries.append(entry(c.new.intValue == 1 ? .reenabled : .disabled, change.new, side: .new, columns: [c.column]))
                    default:
                        rest.append(c)
                    }
                }
                if moved, let lat = shape.columns.firstIndex(of: "lat"), let lng = shape.columns.firstIndex(of: "lng") {
                    func place(_ row: [SQLValue]) -> String {
                        MicroDegrees.format(row[lat].intValue ?? 0) + " " + MicroDegrees.format(row[lng].intValue ?? 0)
                    }
                    entries.append(entry(.moved, change.new, side: .new, old: place(change.old), new: place(change.new),
                                         metres: report.summary.move(of: change.key.first?.intValue ?? 0), columns: ["lat", "lng"]))
                }
                if !rest.isEmpty {
                    entries.append(entry(.changed, change.new, side: .new,
                                         old: rest.map { "\($0.column) \(DiffReport.display($0.old, column: $0.column))" }.joined(separator: ", "),
                                         new: rest.map { "\($0.column) \(DiffReport.display($0.new, column: $0.column))" }.joined(separator: ", "),
                                         columns: Set(rest.map(\.column))))
                }
            }
        }
        if causes != nil {
            // A machine weight follows the other changes when there are any (ChangeCauses.weight).
            let othersChanged = entries.contains { $0.kind != .weight }
            for i in entries.indices where entries[i].kind == .weight {
                let (cause, follows) = ChangeCauses.weight(old: entries[i].old.flatMap { Int($0) }, new: entries[i].new.flatMap { Int($0) },
                                                           othersChanged: othersChanged)
                entries[i].cause = cause
                entries[i].follows = follows ? true : nil
            }
        }
        let kindOrder = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        let tableRank = Dictionary(uniqueKeysWithValues: Self.tableOrder.enumerated().map { ($1, $0) })
        // Stable: within a table and kind, rows keep the diff's key order.
        self.entries = entries.enumerated().sorted {
            let a = $0.element, b = $1.element
            return (tableRank[a.table]!, kindOrder[a.kind]!, $0.offset) < (tableRank[b.table]!, kindOrder[b.kind]!, $1.offset)
        }.map(\.element)
    }

    package func entries(_ table: String, _ kind: Kind) -> [Entry] { entries.filter { $0.table == table && $0.kind == kind } }

    /// How many entries of each kind a table has, in Kind order, kinds with none left out.
    package func counts(_ table: String) -> [(kind: Kind, count: Int)] {
        Kind.allCases.compactMap { kind in
            let n = entries.count { $0.table == table && $0.kind == kind }
            return n > 0 ? (kind, n) : nil
        }
    }

    /// What a reviewer should look at first: every move over a kilometre
    /// (MicroDegrees.notableMoveMetres) and every rename of a station.
    package var notable: [Entry] { Self.notable(entries) }

    package static func notable(_ entries: [Entry]) -> [Entry] {
        entries.filter { $0.table == "stations" && (($0.kind == .moved && ($0.metres ?? 0) > MicroDegrees.notableMoveMetres) || $0.kind == .renamed) }
    }
}

// MARK: - The changes in words, as the plan and summary.txt list them

extension ChangeList {
    /// "s_id 5 駅5 (東日本旅客鉄道): 4244.8 m, 35.610000 139.700000 -> 35.630000 139.740000".
    package static func describe(_ e: Entry) -> String {
        let key = e.table == "lines" ? "l_id" : e.table == "operators" ? "o_id" : "s_id"
        var out = "\(key) \(e.id) \(e.name)"
        switch e.kind {
        case .moved:
            out += ": \(fixed(e.metres ?? 0, decimals: 1)) m, \(e.old ?? "") -> \(e.new ?? "")"
        case .renamed, .weight, .changed:
            out += ": \(e.old ?? "") -> \(e.new ?? "")"
        default: break
        }
        return out
    }

    /// The change and, in brackets, its cause: "s_id 60 駅60 (東京地下鉄) [raw/fixes.csv:4]".
    package static func withCause(_ e: Entry) -> String {
        describe(e) + (e.cause.map { " [\($0)]" } ?? "")
    }

    /// The grouped weights, one line per cause: "2 machine weights follow the changes above
    /// (12 -> 13: 2): s_id 39 二股 (JR北海道), ...", "5 hand weights re-tiered (5 -> 2: 3, ...): ...",
    /// at most `limit` named in each, with the cause they share.
    package static func groupedWeights(_ entries: [Entry], limit: Int) -> [(line: String, cause: String)] {
        let grouped = entries.filter { $0.follows == true }
        return [ChangeCauses.machineWeights, ChangeCauses.retiered].compactMap { cause in
            let these = grouped.filter { $0.cause == cause }
            guard !these.isEmpty else { return nil }
            var byStep: [String: Int] = [:]
            for e in these { byStep["\(e.old ?? "") -> \(e.new ?? "")", default: 0] += 1 }
            let steps = byStep.keys.sorted().map { "\($0): \(byStep[$0]!)" }.joined(separator: ", ")
            let names = these.prefix(limit).map { "\($0.table == "stations" ? "s_id" : "id") \($0.id) \($0.name)" }.joined(separator: ", ")
            let what = cause == ChangeCauses.machineWeights ? "machine weight\(these.count == 1 ? "" : "s") follow\(these.count == 1 ? "s" : "") the changes above"
                : "hand weight\(these.count == 1 ? "" : "s") re-tiered"
            return ("\(these.count) \(what) (\(steps)): " + names + (these.count > limit ? ", ... and \(these.count - limit) more" : ""), cause)
        }
    }

    /// A table's changes, one line each ("  moved     s_id ... [cause]"), `limit` of each kind,
    /// and the grouped weights last, a line per group.
    package static func lines(_ entries: [Entry], limit: Int) -> [String] {
        var out: [String] = []
        for kind in Kind.allCases {
            let some = entries.filter { $0.kind == kind && $0.follows != true }
            for e in some.prefix(limit) { out.append("  \(kind.rawValue.padded(to: 9)) \(printable(withCause(e)))") }
            if some.count > limit { out.append("  \(kind.rawValue.padded(to: 9)) ... and \(some.count - limit) more") }
        }
        for group in groupedWeights(entries, limit: limit) { out.append("  \(Kind.weight.rawValue.padded(to: 9)) \(printable(group.line))") }
        return out
    }

    /// Every table's changes under its name ("lines:"), tables without any left out.
    package func text(limit: Int) -> String {
        var out = ""
        for table in Self.tableOrder {
            let rows = entries.filter { $0.table == table }
            if rows.isEmpty { continue }
            out += "\n\(table):\n" + Self.lines(rows, limit: limit).map { $0 + "\n" }.joined()
        }
        return out
    }
}
