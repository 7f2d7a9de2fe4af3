// swift-tools-version: 6.0
import PackageDescription

// The design card's shape: three stage modules (Ingest, Priority, BuildDB) over StationCore,
// the maintainer's loop over them (Publishing), and the one command (stationdb). The stages
// depend on StationCore alone, so they compile side by side. No library products: nothing
// outside the package uses these modules; what the command and the tests reach is `package`.
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

        // Files, CSV, SQLite, gzip, digests, the one error type and the events (IO/); the values
        // the stages hand over, the staging file, the bundle's schema, the registry (Model/); the
        // Android patch's policy and runner (Patch/).
        .target(name: "StationCore", dependencies: ["CSQLite", "CZlib", "CLibdeflate", "CCrypto", "CICU"],
                resources: [.embedInCode("Model/identity-weights.csv")]),
        // Stage 1: the station sources (native CSV, ekidata, N02 through libxml2, the upstream)
        // into one network, each entity's identity against the registry, the fixes, lint.
        .target(name: "Ingest", dependencies: ["StationCore", "CLibXML2", "CICU"]),
        // Stage 2: every station's weight (hand weights, machine tiers spread over the map).
        .target(name: "Priority", dependencies: ["StationCore"]),
        // Stage 3: the versioned SQLite bundle, its guards and verifier, and the difference
        // between two bundles (reports, identity review, the Android patch).
        .target(name: "BuildDB", dependencies: ["StationCore"]),
        // The maintainer's loop: plan and publish over the three stages (Pipeline/), the preview
        // page (Preview/), and the remote side: HTTP (Transfer/), fetch, the apps' reference
        // client (Client/), deploy.
        .target(name: "Publishing", dependencies: ["StationCore", "Ingest", "Priority", "BuildDB", "CCurl"],
                resources: [.embedInCode("Preview/Page/preview.html"), .embedInCode("Preview/Page/preview.css"), .embedInCode("Preview/Page/preview.js")]),
        .executableTarget(name: "stationdb", dependencies: [
            "StationCore", "Ingest", "Priority", "BuildDB", "Publishing",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], resources: [
            // Each command's long help (docs/cli.md shows them all).
            .embedInCode("Help/build.txt"),
            .embedInCode("Help/deploy.txt"),
            .embedInCode("Help/diff.txt"),
            .embedInCode("Help/explain.txt"),
            .embedInCode("Help/fetch.txt"),
            .embedInCode("Help/ingest.txt"),
            .embedInCode("Help/lint.txt"),
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

        // What the tests share (files, processes, the stationdb built beside them): over
        // StationCore alone, so that every test target compiles while the stages build.
        .target(name: "TestSupport", dependencies: ["StationCore"], path: "Tests/TestSupport", exclude: ["gzip_check.py"]),
        // One test target per module, with a folder per job, and make as the nightly job runs it
        // (MakeTests), with the stationdb built beside the tests.
        .testTarget(name: "CoreTests", dependencies: ["StationCore", "TestSupport"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "StationCore", "TestSupport"]),
        .testTarget(name: "PriorityTests", dependencies: ["Priority", "StationCore", "TestSupport"]),
        // The bundle as the build stage publishes it (BuildStage), from sources as Ingest reads them.
        .testTarget(name: "BuildDBTests", dependencies: ["BuildDB", "Publishing", "Priority", "Ingest", "StationCore", "TestSupport"]),
        .testTarget(name: "PublishingTests", dependencies: ["Publishing", "BuildDB", "Priority", "Ingest", "StationCore", "TestSupport"],
                    exclude: ["Golden", "Transfer/test_server.py"]),
        .testTarget(name: "MakeTests", dependencies: ["StationCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
