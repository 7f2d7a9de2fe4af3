// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "stationdb",
    // The code is under the MIT licence (LICENSE); the data in raw/ and the bundles built
    // from it under their own (raw/CREDITS.md: CC BY-SA 4.0).
    products: [
        .executable(name: "stationdb", targets: ["stationdb"]),
        .library(name: "StationModel", targets: ["StationModel"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "Priority", targets: ["Priority"]),
        .library(name: "BuildDB", targets: ["BuildDB"]),
        .library(name: "BundleDiff", targets: ["BundleDiff"]),
        .library(name: "Transfer", targets: ["Transfer"]),
        .library(name: "SourceFetch", targets: ["SourceFetch"]),
        .library(name: "AppClient", targets: ["AppClient"]),
        .library(name: "Lint", targets: ["Lint"]),
        .library(name: "Publishing", targets: ["Publishing"]),
        .library(name: "Preview", targets: ["Preview"]),
        .library(name: "Deploy", targets: ["Deploy"]),
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

        // Files, CSV, SQLite, gzip (libdeflate writes, zlib inflates) and digests, and the errors that name file, line and field.
        .target(name: "StationIO", dependencies: ["CSQLite", "CZlib", "CLibdeflate", "CCrypto"]),
        // Operators, lines, stations: the values the stages hand over, the staging
        // file, the bundle's schema, the weights file and what a publish says of itself.
        .target(name: "StationModel", dependencies: ["StationIO", "CZlib", "CICU"]),
        .target(name: "Ingest", dependencies: ["StationModel", "StationIO", "CLibXML2", "CICU"]),
        .target(name: "Priority", dependencies: ["StationModel", "StationIO"]),
        .target(name: "BundleDiff", dependencies: ["StationModel", "StationIO"]),
        .target(name: "BuildDB", dependencies: ["StationModel", "StationIO", "BundleDiff"]),
        // HTTP for both jobs below: libcurl with timeouts, a size limit and retries.
        .target(name: "Transfer", dependencies: ["StationModel", "StationIO", "CCurl"]),
        // `stationdb fetch`: the sources of raw/sources.json, each file checked with its reader.
        .target(name: "SourceFetch", dependencies: ["Transfer", "Ingest", "StationModel", "StationIO"]),
        // `stationdb pull`: the apps' reference client, and the published version a plan reads.
        .target(name: "AppClient", dependencies: ["Transfer", "BundleDiff", "StationModel", "StationIO"]),
        // `stationdb lint`: the values of the sources a maintainer should look at.
        .target(name: "Lint", dependencies: ["Ingest", "StationModel", "StationIO"]),
        // `stationdb preview`: one HTML page that shows the pins the apps would show.
        .target(name: "Preview", dependencies: ["StationModel", "StationIO", "BundleDiff"],
                resources: [.embedInCode("Page/preview.html"), .embedInCode("Page/preview.css"), .embedInCode("Page/preview.js")]),
        // The maintainer's loop as library calls: plan and publish (the stages, a candidate
        // version under build/, its move into dist/).
        .target(name: "Publishing", dependencies: ["StationModel", "StationIO", "Ingest", "Lint", "Priority", "BuildDB", "BundleDiff", "Transfer", "AppClient", "Preview"]),
        // `stationdb deploy`: a dist copied to where the apps download it, in an order that
        // never announces a missing file, and read back there with the apps' own client.
        .target(name: "Deploy", dependencies: ["StationModel", "StationIO", "Transfer", "AppClient"]),
        // The bench's inputs and helpers: scaled copies of the national network.
        .target(name: "Synth", dependencies: ["StationModel", "StationIO", "Ingest"]),
        .executableTarget(name: "stationdb", dependencies: [
            "StationModel", "StationIO", "Ingest", "Priority", "BuildDB", "BundleDiff", "Transfer", "SourceFetch", "AppClient", "Synth", "Lint", "Preview", "Publishing", "Deploy",
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
        .target(name: "TestSupport", dependencies: ["StationIO", "StationModel", "Ingest", "BuildDB", "BundleDiff", "Publishing"], path: "Tests/TestSupport",
                exclude: ["gzip_check.py"]),
        .testTarget(name: "StationModelTests", dependencies: ["StationModel", "StationIO", "TestSupport"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "StationModel", "StationIO", "Synth", "TestSupport"]),
        .testTarget(name: "LintTests", dependencies: ["Lint", "Ingest", "StationModel", "StationIO", "Synth", "TestSupport"]),
        .testTarget(name: "MasterTests", dependencies: ["Ingest", "Priority", "BuildDB", "StationModel", "StationIO", "Synth", "TestSupport"]),
        .testTarget(name: "PriorityTests", dependencies: ["Priority", "StationModel", "StationIO", "TestSupport"]),
        .testTarget(name: "BuildDBTests", dependencies: ["BuildDB", "BundleDiff", "StationModel", "StationIO", "TestSupport"]),
        .testTarget(name: "BundleDiffTests", dependencies: ["BundleDiff", "StationModel", "StationIO", "TestSupport"]),
        .testTarget(name: "TransferTests", dependencies: ["Transfer", "SourceFetch", "AppClient", "Ingest", "BuildDB", "StationModel", "StationIO", "TestSupport"],
                    exclude: ["test_server.py"]),
        // The preview page in headless Chromium against the apps' SQL on the same bundles.
        .testTarget(name: "PreviewTests", dependencies: ["Preview", "Ingest", "Priority", "BuildDB", "BundleDiff", "StationModel", "StationIO", "TestSupport"]),
        // make as the nightly job runs it, with the stationdb built beside the tests.
        .testTarget(name: "MakeTests", dependencies: ["StationIO", "TestSupport"]),
        // deploy into folders, through rsync and a stand-in ssh, killed at every moment; make deploy.
        .testTarget(name: "DeployTests", dependencies: ["Deploy", "StationModel", "StationIO", "TestSupport"]),
        .testTarget(name: "PublishingTests", dependencies: ["Publishing", "BuildDB", "BundleDiff", "Ingest", "Lint", "StationModel", "StationIO", "TestSupport"],
                    exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
