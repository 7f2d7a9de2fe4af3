import StationCore

// raw/identity.csv: the maintainer's decisions on identities the evidence could not
// prove. An s_id is the key of every user's record, so ingest never hands one to a
// station it cannot show to be the same (IdentityLinker), and the guards refuse a
// version in which an s_id would name another station, or retire while its station
// lives on under another s_id (IdentityReview). What the evidence cannot settle, the
// maintainer does here, per s_id, kept and applied on every run like fixes.csv:
//
//   s_id,decision,expect,note
//   1274,same,station=新橋,the upstream gave it a new id in v20260801; same platforms
//   7731,new,station=奥飛騨温泉口,神岡鉄道's station closed in 2006; 濃飛バス's is another
//   5120,merge,station=上越妙高;o_id=4,one row for the station both operators serve
//
// `same`: the s_id names the station `expect` describes, whatever the guards would say of
// the move: the station of this run that carries the s_id's keys, as the fixes leave it
// (a fix that renames and moves a station on purpose), or else one the evidence points at
// (its name within 5 km, its place within 1 km) that no other s_id's keys claim. `new`:
// the s_id retires (published disabled, as last seen) and whatever this run has in its
// place gets a new s_id; `expect` describes the s_id's station as last published.
// `merge`: the s_id retires into the station `expect` describes (within 5 km), which keeps
// its own s_id; the bundle lists the pair in renumbered_stations, so the apps carry the
// users' records over, and the merged s_id is published no more. `expect` is what makes a
// mistyped s_id an error. A decision a published version applied is remembered in the
// registry (its `decided` column): a later change of its station (a rename) neither
// breaks a run nor reopens the question.

package struct IdentityDecision: Sendable, Hashable {
    package enum Kind: String, Sendable, CaseIterable {
        /// The s_id follows the station `expect` describes.
        case same
        /// The s_id retires; the station in its place gets a new one.
        case new
        /// The s_id retires into the station `expect` describes: its users' records follow.
        case merge
    }

    package var stationID: Int
    package var kind: Kind
    /// The station concerned.
    package var expect: StationExpectation
    package var note: String
    package var location: SourceLocation

    package init(stationID: Int, kind: Kind, expect: StationExpectation, note: String, location: SourceLocation) {
        self.stationID = stationID; self.kind = kind; self.expect = expect; self.note = note; self.location = location
    }

    /// How the registry remembers the decision once a version applied it ("same station=田町").
    package var memory: String { "\(kind.rawValue) \(expect)" }
}

package enum IdentityDecisions {
    package static let fileName = "identity.csv"
    package static let columns = CSVColumns(required: ["s_id", "decision", "expect", "note"], optional: [])

    /// Every decision of the file (none when there is no file); every malformed row is an
    /// error at its line and field, all of them at once.
    package static func read(path: String, label: String) throws -> [IdentityDecision] {
        let (decisions, problems) = try rows(path: path, label: label)
        if !problems.isEmpty { throw StationError.badInput(problems) }
        return decisions
    }

    /// The decisions of the rows that can be read, and each problem of those that cannot,
    /// for the run to list with what applying the others finds: every error at once.
    /// A file that is no table with these columns throws.
    package static func rows(path: String, label: String) throws -> (decisions: [IdentityDecision], problems: [Diagnostic]) {
        guard Files.exists(path) else { return ([], []) }
        let table = try CSVReader.read(path: path, displayName: label)
        if table.header.isEmpty { return ([], []) }
        try table.require(columns)
        let cID = table.column("s_id"), cDecision = table.column("decision"), cExpect = table.column("expect"), cNote = table.column("note")
        var problems = DiagnosticCollector(limit: .max)
        var decisions: [IdentityDecision] = [], lineOf: [Int: Int] = [:]
        for r in table.records {
            // An s_id is digits only: `+1273` and `-5` name no station, whatever a number reader makes of them.
            let idText = table.string(r, cID).trimmed()
            let id = idText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int(idText) : nil
            if id == nil { problems.add(table.location(r, cID), "expected an s_id (digits only), found \(idText.isEmpty ? "nothing" : "'\(shown(idText))'")") }
            let kindText = table.string(r, cDecision).trimmed()
            let kind = IdentityDecision.Kind(rawValue: kindText)
            if kind == nil { problems.add(table.location(r, cDecision), "expected same, new or merge, found '\(shown(kindText))'") }
            let expectText = table.string(r, cExpect)
            let expect = StationExpectation(expectText)
            if expect == nil {
                problems.add(table.location(r, cExpect), expectText.trimmed().isEmpty
                             ? "expected the station the decision concerns (e.g. station=新橋), found nothing: it is what makes a mistyped s_id an error"
                             : "expected column=value[;column=value] with columns \(StationExpectation.columns.joined(separator: ", ")), found '\(shown(expectText))'")
            }
            let note = table.string(r, cNote)
            if note.trimmed().isEmpty { problems.add(table.location(r, cNote), "expected a note saying why (it is the record of the decision), found nothing") }
            guard let id, let kind, let expect, !note.trimmed().isEmpty else { continue }
            if let earlier = lineOf.updateValue(table.line(r), forKey: id) {
                problems.add(table.location(r, cID), "s_id \(id) is decided twice (first on line \(earlier)); keep one decision")
                continue
            }
            decisions.append(IdentityDecision(stationID: id, kind: kind, expect: expect, note: note, location: table.location(r)))
        }
        return (decisions, problems.diagnostics)
    }
}
