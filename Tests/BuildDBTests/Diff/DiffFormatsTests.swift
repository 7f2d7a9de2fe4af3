import BuildDB
import StationCore
import Foundation
import XCTest

/// Each format's exact output for one small pair (DiffFixtures.formatsPair): an
/// operator renamed (with | and quotes), a station moved 0.001 degrees and
/// re-weighted, one added, one removed, with their stations_lines rows.
final class DiffFormatsTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    func report() throws -> DiffReport {
        let (old, new) = try DiffFixtures.formatsPair(in: try DiffFixtures.folder())
        return try DiffReport.make(oldPath: old, newPath: new, oldLabel: "v1.sqlite", newLabel: "v2.sqlite")
    }

    func testText() throws {
        XCTAssertEqual(try report().render(.text, limit: 50), Self.text)
    }

    func testMarkdown() throws {
        XCTAssertEqual(try report().render(.markdown, limit: 50), Self.markdown)
    }

    func testSQL() throws {
        XCTAssertEqual(try report().render(.sql, limit: 1), Self.sql, "the limit never cuts a patch")
    }

    func testJSON() throws {
        let json = try report().render(.json, limit: 1, guardViolations: ["example"])
        // The same document, whatever the order of members or the spelling of numbers.
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Self.json.utf8)) as? NSDictionary)
        XCTAssertEqual(parsed, expected, json)
        XCTAssertEqual(json, String(decoding: try JSONSerialization.data(withJSONObject: parsed, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]), as: UTF8.self) + "\n",
                       "written as every JSON file of the project: keys sorted, a trailing newline")
    }

    static let text = #"""
        old: v1.sqlite (version 1)
        new: v2.sqlite (version 2)

        table                old rows  new rows   added  removed  changed
        operators                   2         2       0        0        1
        lines                       1         1       0        0        0
        stations                    2         2       1        1        1
        stations_lines              2         2       1        1        0
        renumbered_stations         0         0       0        0        0

        operators: 1 changed
          ~ o_id 2 Keisei | "Electric": operator "Keisei" -> "Keisei | \"Electric\""

        stations: 1 added, 1 removed, 1 changed
          + s_id 102 神田 (JR東日本)
          - s_id 101 上野 (JR東日本)
          ~ s_id 100 東京 (JR東日本): lat 35.681382 -> 35.682382 (moved 111.2 m), weight 1 -> 2

        stations_lines: 1 added, 1 removed
          + l_id 10 s_id 102 山手線 (JR東日本) / 神田
          - l_id 10 s_id 101 山手線 (JR東日本) / 上野

        summary:
          stations removed: 1 of 2 (50.00%)
          stations disabled: 0 of 2 enabled (0.00%); re-enabled: 0
          stations moved: 1, furthest 111.2 m (s_id 100 東京)
          weight changes: 1 station; live stations with a new weight: 1 of 1 (100.00%)
            weight 1 -> 2: 1 station

        """#

    static let markdown = #"""
        ### Station bundle: version 1 → 2

        old `v1.sqlite` · new `v2.sqlite`

        | table | old rows | new rows | added | removed | changed |
        |---|---:|---:|---:|---:|---:|
        | operators | 2 | 2 | 0 | 0 | 1 |
        | lines | 1 | 1 | 0 | 0 | 0 |
        | stations | 2 | 2 | 1 | 1 | 1 |
        | stations_lines | 2 | 2 | 1 | 1 | 0 |
        | renumbered_stations | 0 | 0 | 0 | 0 | 0 |

        #### operators: 1 changed

        | | key | name | changes |
        |---|---|---|---|
        | changed | o_id 2 | Keisei \| "Electric" | operator "Keisei" → "Keisei \| \\"Electric\\"" |

        #### stations: 1 added, 1 removed, 1 changed

        | | key | name | changes |
        |---|---|---|---|
        | added | s_id 102 | 神田 (JR東日本) |  |
        | removed | s_id 101 | 上野 (JR東日本) |  |
        | changed | s_id 100 | 東京 (JR東日本) | lat 35.681382 → 35.682382 (moved 111.2 m), weight 1 → 2 |

        #### stations_lines: 1 added, 1 removed

        | | key | name | changes |
        |---|---|---|---|
        | added | l_id 10 s_id 102 | 山手線 (JR東日本) / 神田 |  |
        | removed | l_id 10 s_id 101 | 山手線 (JR東日本) / 上野 |  |

        #### Summary

        - stations removed: 1 of 2 (50.00%)
        - stations disabled: 0 of 2 enabled (0.00%); re-enabled: 0
        - stations moved: 1, furthest 111.2 m (s_id 100 東京)
        - weight changes: 1 station; live stations with a new weight: 1 of 1 (100.00%)

        | old weight | new weight | stations |
        |---:|---:|---:|
        | 1 | 2 | 1 |

        """#

    static let sql = #"""
        DELETE FROM stations_lines WHERE l_id = 10 AND s_id = 101;
        DELETE FROM stations WHERE s_id = 101;
        UPDATE operators SET operator = 'Keisei | "Electric"' WHERE o_id = 2;
        UPDATE stations SET lat = 35682382, weight = 2 WHERE s_id = 100;
        INSERT OR IGNORE INTO stations (s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled, weight) VALUES (102, '神田', 'えき', '', 13, '東京都', 35691690, 139770883, 1, 1, 12);
        INSERT OR IGNORE INTO stations_lines (l_id, s_id, s_sort) VALUES (10, 102, 2);
        PRAGMA user_version = 2;

        """#

    static let json = #"""
        {
          "format": "stationdb-diff",
          "format_version": 2,
          "old": {
            "label": "v1.sqlite",
            "version": 1
          },
          "new": {
            "label": "v2.sqlite",
            "version": 2
          },
          "same": false,
          "tables": [
            {
              "table": "operators",
              "key": [
                "o_id"
              ],
              "old_rows": 2,
              "new_rows": 2,
              "table_added": false,
              "table_removed": false,
              "added": [],
              "removed": [],
              "changed": [
                {
                  "key": {
                    "o_id": 2
                  },
                  "name": "Keisei | \"Electric\"",
                  "columns": {
                    "operator": {
                      "old": "Keisei",
                      "new": "Keisei | \"Electric\""
                    }
                  }
                }
              ]
            },
            {
              "table": "lines",
              "key": [
                "l_id"
              ],
              "old_rows": 1,
              "new_rows": 1,
              "table_added": false,
              "table_removed": false,
              "added": [],
              "removed": [],
              "changed": []
            },
            {
              "table": "stations",
              "key": [
                "s_id"
              ],
              "old_rows": 2,
              "new_rows": 2,
              "table_added": false,
              "table_removed": false,
              "added": [
                {
                  "key": {
                    "s_id": 102
                  },
                  "name": "神田 (JR東日本)",
                  "row": {
                    "s_id": 102,
                    "station": "神田",
                    "yomi": "えき",
                    "wiki": "",
                    "pref": 13,
                    "address": "東京都",
                    "lat": 35691690,
                    "lng": 139770883,
                    "o_id": 1,
                    "enabled": 1,
                    "weight": 12
                  }
                }
              ],
              "removed": [
                {
                  "key": {
                    "s_id": 101
                  },
                  "name": "上野 (JR東日本)",
                  "row": {
                    "s_id": 101,
                    "station": "上野",
                    "yomi": "えき",
                    "wiki": "",
                    "pref": 13,
                    "address": "東京都",
                    "lat": 35713768,
                    "lng": 139777254,
                    "o_id": 1,
                    "enabled": 1,
                    "weight": 11
                  }
                }
              ],
              "changed": [
                {
                  "key": {
                    "s_id": 100
                  },
                  "name": "東京 (JR東日本)",
                  "columns": {
                    "lat": {
                      "old": 35681382,
                      "new": 35682382
                    },
                    "weight": {
                      "old": 1,
                      "new": 2
                    }
                  },
                  "moved_m": 111.2
                }
              ]
            },
            {
              "table": "stations_lines",
              "key": [
                "l_id",
                "s_id"
              ],
              "old_rows": 2,
              "new_rows": 2,
              "table_added": false,
              "table_removed": false,
              "added": [
                {
                  "key": {
                    "l_id": 10,
                    "s_id": 102
                  },
                  "name": "山手線 (JR東日本) / 神田",
                  "row": {
                    "l_id": 10,
                    "s_id": 102,
                    "s_sort": 2
                  }
                }
              ],
              "removed": [
                {
                  "key": {
                    "l_id": 10,
                    "s_id": 101
                  },
                  "name": "山手線 (JR東日本) / 上野",
                  "row": {
                    "l_id": 10,
                    "s_id": 101,
                    "s_sort": 2
                  }
                }
              ],
              "changed": []
            },
            {
              "table": "renumbered_stations",
              "key": [
                "new_s_id",
                "old_s_id"
              ],
              "old_rows": 0,
              "new_rows": 0,
              "table_added": false,
              "table_removed": false,
              "added": [],
              "removed": [],
              "changed": []
            }
          ],
          "summary": {
            "stations_old": 2,
            "stations_removed": 1,
            "removed_percent": 50.0000,
            "stations_enabled_old": 2,
            "stations_disabled": 0,
            "stations_reenabled": 0,
            "disabled_percent": 0.0000,
            "stations_moved": 1,
            "max_moved_m": 111.2,
            "stations_live_in_both": 1,
            "weight_churn": 1,
            "weight_churn_percent": 100.0000,
            "weight_changes": [
              {
                "old": 1,
                "new": 2,
                "stations": 1
              }
            ]
          },
          "guard_violations": [
            "example"
          ]
        }

        """#
}
