// swift-tools-version: 6.0
import PackageDescription

// The data's modules are optimized in the debug build too: the tests run the national
// network through ingest, identities, priority and build hundreds of times, which at
// -Onone is most of `make test`'s time. The tests themselves stay at -Onone.
let optimizedInTests: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "stationdb",
    // The code is under the MIT licence (LICENSE); the data in raw/ and the bundles built
    // from it under their own (raw/CREDITS.md: CC BY-SA 4.0).
    products: [
        .executable(name: "stationdb", targets: ["stationdb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Thin module maps over Debian's -dev packages (scripts/setup installs them).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CICU", providers: [.apt(["libicu-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Files, CSV, SQLite, gzip (libdeflate writes, zlib inflates), digests, the one error
        // type and the events (IO/); operators, lines, stations, the staging file, the
        // bundle's schema, the registry and the weights file (Model/).
        .target(name: "StationCore", dependencies: ["CSQLite", "CZlib", "CLibdeflate", "CCrypto", "CICU"], swiftSettings: optimizedInTests),
        // The data's jobs, each in its folder: Ingest (the sources into one network, each
        // station's identity), Lint, Priority (weights), Diff (two bundles compared, the
        // patch), Build (the bundle and its guards), Preview (one HTML page of the pins the
        // apps would show), Synth (the bench's scaled networks).
        .target(name: "StationData", dependencies: ["StationCore", "CLibXML2", "CICU"],
                resources: [.embedInCode("Preview/Page/preview.html"), .embedInCode("Preview/Page/preview.css"), .embedInCode("Preview/Page/preview.js")],
                swiftSettings: optimizedInTests),
        // The remote side: Transfer (libcurl with timeouts, a size limit and retries), Fetch
        // (the sources of raw/sources.json), Client (the apps' reference client, `pull`),
        // Deploy (a dist copied to where the apps download it, and read back there).
        .target(name: "StationRemote", dependencies: ["StationCore", "StationData", "CCurl"]),
        // The maintainer's loop as library calls: plan and publish (the stages, a candidate
        // version under build/, its move into dist/).
        .target(name: "Publishing", dependencies: ["StationCore", "StationData", "StationRemote"]),
        .executableTarget(name: "stationdb", dependencies: [
            "StationCore", "StationData", "StationRemote", "Publishing",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], resources: [
            // Each command's long help (docs/cli.md shows them all).
            .embedInCode("Help/build.txt"),
            .embedInCode("Help/deploy.txt"),
            .embedInCode("Help/diff.txt"),
            .embedInCode("Help/fetch.txt"),
            .embedInCode("Help/ingest.txt"),
            .embedInCode("Help/main.txt"),
            .embedInCode("Help/plan.txt"),
            .embedInCode("Help/preview.txt"),
            .embedInCode("Help/priority.txt"),
            .embedInCode("Help/priorityassign.txt"),
            .embedInCode("Help/prioritymap.txt"),
            .embedInCode("Help/priorityreport.txt"),
            .embedInCode("Help/prioritysuggest.txt"),
            .embedInCode("Help/publish.txt"),
            .embedInCode("Help/pull.txt"),
            .embedInCode("Help/synth.txt"),
            .embedInCode("Help/synth2.txt"),
            .embedInCode("Help/verify.txt"),
        ]),

        // What the tests that run stationdb, make or sqldiff share.
        .target(name: "TestSupport", dependencies: ["StationCore", "StationData", "Publishing"], path: "Tests/TestSupport",
                exclude: ["gzip_check.py"]),
        // One test target per module, with a folder per job, and make as the nightly job runs
        // it (MakeTests), with the stationdb built beside the tests.
        .testTarget(name: "CoreTests", dependencies: ["StationCore", "TestSupport"]),
        .testTarget(name: "DataTests", dependencies: ["StationData", "StationCore", "TestSupport"]),
        .testTarget(name: "RemoteTests", dependencies: ["StationRemote", "StationData", "StationCore", "TestSupport"],
                    exclude: ["Transfer/test_server.py"]),
        .testTarget(name: "PublishingTests", dependencies: ["Publishing", "StationRemote", "StationData", "StationCore", "TestSupport"],
                    exclude: ["Golden"]),
        .testTarget(name: "MakeTests", dependencies: ["StationCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
