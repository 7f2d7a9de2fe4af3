import BuildDB
import Ingest
import Priority
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// The national bundle as the nightly job would build it from the repository's
/// raw/ (ekidata, registry, hand weights) through the libraries, a baseline a
/// season of edits away from it, and the preview of the one against the other,
/// all in one temporary folder shared by the tests of a run.
struct NationalPreview: Sendable {
    var folder: String
    var candidate: String
    var baseline: String
    /// The page with the baseline.
    var page: String

    nonisolated(unsafe) private static var built: NationalPreview?

    static var packageRoot: String {
        RepositoryData.root
    }

    /// Removes the shared folder (at the end of the test class).
    static func removeShared() {
        if let built { try? FileManager.default.removeItem(atPath: built.folder) }
        built = nil
    }

    static func shared() async throws -> NationalPreview {
        if let built { return built }
        let folder = NSTemporaryDirectory() + "preview-tests-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        let raw = packageRoot + "/raw"
        let network = try await IngestPipeline.run(IngestOptions(rawFolder: raw)).staging.network
        let hand = try HandWeights.read(path: raw + "/" + HandWeights.fileName, network: network).weights
        let weights = PriorityAssigner.assign(network: network, hand: hand)
        let candidate = folder + "/candidate.sqlite"
        try BundleWriter.write(network: network, weights: weights, renumberings: [], version: 2, to: candidate)

        let (older, olderWeights) = baseline(of: network, weights: weights)
        let baseline = folder + "/baseline.sqlite"
        try BundleWriter.write(network: older, weights: olderWeights, renumberings: [], version: 1, to: baseline)

        let page = folder + "/preview.html"
        try PreviewPage.write(candidate: candidate, baseline: baseline, to: page)
        let made = NationalPreview(folder: folder, candidate: candidate, baseline: baseline, page: page)
        built = made
        return made
    }

    /// The version before: every kind of change the page lists, and in Tokyo
    /// enough weight changes that the two sides show different pins there.
    static func baseline(of network: RailNetwork, weights: [Int: Int]) -> (RailNetwork, [Int: Int]) {
        var older = network
        var w = weights
        for i in stride(from: 5, to: older.stations.count, by: 211) { older.stations[i].lat -= 10_000 }       // moved ~1.1 km
        for i in stride(from: 0, to: older.stations.count, by: 97) { older.stations[i].name += "（旧）" }        // renamed
        for i in stride(from: 7, to: older.stations.count, by: 503) { older.stations[i].enabled.toggle() }    // disabled / re-enabled
        for (k, s) in older.stations.enumerated() where k % 3 == 0 && (35_550_000...35_800_000).contains(s.lat)
            && (139_600_000...139_900_000).contains(s.lng) && s.enabled {
            // Around Tokyo, a third of the stations weighted 1 or 13 the other way round: which pins win the city changes.
            w[s.id] = (w[s.id] ?? 13) <= 10 ? 13 : 1
        }
        // Added in the candidate: a station the baseline lacks.
        let added = older.stations[1_000].id
        older.stations.removeAll { $0.id == added }
        older.stationLines.removeAll { $0.stationID == added }
        w[added] = nil
        // Removed in the candidate: a station only the baseline has.
        let gone = (older.stations.map(\.id).max() ?? 0) + 1
        older.stations.append(Station(id: gone, name: "廃駅", yomi: "はいえき", pref: 13, lat: 35_700_000, lng: 139_750_000,
                                      operatorID: older.operators[0].id))
        w[gone] = 12
        older.sortByKey()
        return (older, w)
    }
}

/// A view as the page's hash gives it, and the apps' query for it on a bundle.
struct AppView: CustomStringConvertible {
    var name: String
    var lat: Double
    var lng: Double
    var span: Double
    var pins: Int

    var hash: String { "lat=\(lat)&lng=\(lng)&span=\(span)&pins=\(pins)" }
    var description: String { "\(name) (\(hash))" }

    /// The query box in micro-degrees, by the formula: clat = round(lat x 1e6),
    /// h = floor(span x 1.1 x 1e6), w = floor(span x 0.6 / cos(lat) x 1.1 x 1e6),
    /// south = clat - floor(h / 2), north = south + h, west and east likewise.
    var parameters: [SQLValue] {
        let clat = Int((lat * 1e6).rounded()), clng = Int((lng * 1e6).rounded())
        let h = Int((span * 1.1 * 1e6).rounded(.down))
        let w = Int((span * 0.6 / cos(lat * .pi / 180) * 1.1 * 1e6).rounded(.down))
        let south = clat - h / 2, west = clng - w / 2
        return [clat, clng, south, south + h, west, west + w, pins].map { .integer(Int64($0)) }
    }

    /// bundle.md's query, with s_id after its ORDER BY: the apps leave ties in
    /// (weight, distance) unordered and the page breaks them by s_id.
    static let sql = """
        SELECT stations.*, (lat - ?1) * (lat - ?1) + (lng - ?2) * (lng - ?2) AS distance
        FROM stations WHERE lat >= ?3 AND lat < ?4 AND lng >= ?5 AND lng < ?6 AND enabled = 1
        ORDER BY stations.weight, distance, s_id LIMIT ?7
        """

    /// The s_ids the apps would show, in order, comma-separated as the page's data-pins.
    func expectedPins(in bundle: String) throws -> String {
        let db = try SQLiteDatabase(path: bundle)
        defer { db.close() }
        return try db.query(Self.sql, parameters).map { $0[0].description }.joined(separator: ",")
    }

    /// How many enabled stations the query box holds (more than `pins`: the weights decide).
    func stationsInBox(of bundle: String) throws -> Int {
        let db = try SQLiteDatabase(path: bundle)
        defer { db.close() }
        return try db.scalarInt("SELECT count(*) FROM stations WHERE lat >= ?1 AND lat < ?2 AND lng >= ?3 AND lng < ?4 AND enabled = 1",
                                Array(parameters[2...5])) ?? 0
    }
}
