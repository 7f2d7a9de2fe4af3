// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "stationdb",
    products: [
        .executable(name: "stationdb", targets: ["stationdb"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "Priority", targets: ["Priority"]),
        .library(name: "BuildDB", targets: ["BuildDB"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Thin module maps over the Debian -dev packages; scripts/setup installs them.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // libcurl: headers only; the library is opened on first use (see its shim.h).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // NFKC for station names; libxml2 already loads this libicuuc at run time.
        .systemLibrary(name: "CICU", pkgConfig: "icu-uc", providers: [.apt(["libicu-dev"])]),

        .target(name: "StationModel", dependencies: ["CSQLite", "CZlib"]),
        .target(name: "Ingest", dependencies: ["StationModel", "CLibXML2", "CICU"]),
        .target(name: "Priority", dependencies: ["StationModel"]),
        .target(name: "BundleDiff", dependencies: ["StationModel"]),
        .target(name: "BuildDB", dependencies: ["StationModel", "BundleDiff", "CZlib"]),
        .target(name: "Transfer", dependencies: ["StationModel", "BundleDiff", "CCurl", "CZlib"]),
        .executableTarget(name: "stationdb", dependencies: [
            "StationModel", "Ingest", "Priority", "BuildDB", "BundleDiff", "Transfer",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "StationModelTests", dependencies: ["StationModel"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "StationModel"]),
        .testTarget(name: "PriorityTests", dependencies: ["Priority", "StationModel"]),
        .testTarget(name: "BuildDBTests", dependencies: ["BuildDB", "BundleDiff", "StationModel"]),
        .testTarget(name: "BundleDiffTests", dependencies: ["BundleDiff", "StationModel"]),
        .testTarget(name: "TransferTests", dependencies: ["Transfer", "BuildDB", "StationModel"]),
    ],
    swiftLanguageModes: [.v5]
)
