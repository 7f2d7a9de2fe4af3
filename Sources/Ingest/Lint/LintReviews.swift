import StationCore

// raw/reviewed.csv: the findings a maintainer has looked at and found right, each with
// what lint said of it then and why it stands. Lint lists them apart and counts them no
// more; a later change that makes the finding read otherwise reopens it.
//
//   rule,subject,expect,note
//   pref,s_id 674,"station 674 気仙沼 has pref 4, none of its 8 nearest stations does: ...",気仙沼 is in Miyagi; ...
//
// `subject` is what the finding is about, as lint names it whatever line of the source it
// stands on: `s_id N` for a station, else the file in raw/ and the field
// (`station_database/line.csv: company_code`). `expect` is the finding's message exactly as
// lint gave it: what the review found right. `note` says why, and is required.

package enum LintReviews {
    package static let fileName = "reviewed.csv"
    package static let columns = CSVColumns(required: ["rule", "subject", "expect", "note"], optional: [])

    package struct Row: Sendable, Hashable {
        package var rule: String
        package var subject: String
        package var expect: String
        package var note: String
        package var location: SourceLocation
        /// "raw/reviewed.csv:3".
        package var place: String { "\(location.file):\(location.line ?? 0)" }
    }

    /// Every row (none without a file); a malformed row is an error at its line and field,
    /// all of them at once, as for raw/'s other files.
    package static func read(path: String, label: String) throws -> [Row] {
        guard Files.exists(path) else { return [] }
        let table = try CSVReader.read(path: path, displayName: label)
        if table.header.isEmpty { return [] }
        try table.require(columns)
        let cRule = table.column("rule"), cSubject = table.column("subject"), cExpect = table.column("expect"), cNote = table.column("note")
        var problems = DiagnosticCollector(limit: .max)
        var rows: [Row] = [], lineOf: [[String]: Int] = [:]
        for r in table.records {
            let rule = table.string(r, cRule).trimmed(), subject = table.string(r, cSubject).trimmed()
            let expect = table.string(r, cExpect), note = table.string(r, cNote)
            var bad = false
            if LintRule(rawValue: rule) == nil || rule == LintRule.reviewed.rawValue {
                problems.add(table.location(r, cRule), "expected a rule lint reports (\(LintRule.allCases.filter { $0 != .reviewed }.map(\.rawValue).joined(separator: ", "))), found '\(shown(rule))'")
                bad = true
            }
            if subject.isEmpty {
                problems.add(table.location(r, cSubject), "expected what the finding is about (s_id N, or file: field as `stationdb lint --format csv` gives it), found nothing")
                bad = true
            }
            if expect.isEmpty {
                problems.add(table.location(r, cExpect), "expected the finding's message as lint gives it, found nothing: it is what reopens the finding when it reads otherwise")
                bad = true
            }
            if note.trimmed().isEmpty {
                problems.add(table.location(r, cNote), "expected a note saying why the finding stands (it is the record of the review), found nothing")
                bad = true
            }
            if bad { continue }
            if let earlier = lineOf.updateValue(table.line(r), forKey: [rule, subject, expect]) {
                problems.add(table.location(r), "the same finding is reviewed twice (first on line \(earlier)); keep one row")
                continue
            }
            rows.append(Row(rule: rule, subject: subject, expect: expect, note: note, location: table.location(r)))
        }
        try problems.check()
        return rows
    }

    /// What a finding is about, whatever line of a source it stands on: `s_id N`, or the
    /// file (relative to raw/) and the field.
    package static func subject(of finding: LintFinding, rawLabel: String) -> String {
        if let id = finding.stationID { return "s_id \(id)" }
        let file = IngestPipeline.relativePath(finding.file, in: rawLabel)
        return finding.field.map { "\(file): \($0)" } ?? file
    }

    /// `findings` split into those still open and those a row reviewed. A station's finding
    /// that reads otherwise than its row expects is reopened (open, naming the row); any
    /// other row that finds nothing as it expects is a finding of its own (rule `reviewed`).
    package static func apply(_ rows: [Row], to findings: [LintFinding], rawLabel: String) -> (open: [LintFinding], reviewed: [ReviewedFinding]) {
        var byKey: [[String]: Row] = [:]
        for row in rows { byKey[[row.rule, row.subject, row.expect]] = row }
        var used = Set<[String]>()
        var open: [LintFinding] = [], reviewed: [ReviewedFinding] = []
        // A station's open findings by rule and subject, in order: what a row that finds
        // nothing as it expects may reopen, looked up once a row (lint stays linear in rows).
        var reopenable: [[String]: [Int]] = [:]
        for finding in findings {
            let subject = subject(of: finding, rawLabel: rawLabel), key = [finding.rule, subject, finding.message]
            if let row = byKey[key] {
                used.insert(key)
                reviewed.append(ReviewedFinding(finding: finding, review: row.place, note: row.note))
            } else {
                if finding.stationID != nil { reopenable[[finding.rule, subject], default: []].append(open.count) }
                open.append(finding)
            }
        }
        for row in rows where !used.contains([row.rule, row.subject, row.expect]) {
            // The same station's finding of the same rule, reading otherwise now: it is reopened.
            if row.subject.hasPrefix("s_id "), let i = reopenable[[row.rule, row.subject]]?.first {
                reopenable[[row.rule, row.subject]]?.removeFirst()
                open[i].reopened = row.place
                continue
            }
            open.append(LintFinding(.reviewed, SourceLocation(file: row.location.file, line: row.location.line, field: "expect"),
                                    "lint no longer finds \(row.rule) for \(row.subject) as this row expects it (the value was mended, "
                                    + "or the finding reads otherwise): look again, then mend the row or remove it"))
        }
        return (open, reviewed)
    }

    /// A row of raw/reviewed.csv for `finding`, with its newline; the note left for the maintainer to write.
    package static func row(for finding: LintFinding, rawLabel: String) -> String {
        CSVWriter.line([finding.rule, subject(of: finding, rawLabel: rawLabel), finding.message, ""])
    }
}
