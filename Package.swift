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
        // SQLite, libxml2 (with the ICU and liblzma it needs) and zlib are linked from
        // the packages' static archives, so no process loads or binds them at start:
        // loading libxml2 and ICU alone took over a millisecond of every command
        // (a national diff is about 20 ms), and SQLite called within itself through
        // its shared object's PLT. Hence no `link` in the module maps and no pkg-config.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", providers: [.apt(["libxml2-dev", "liblzma-dev"])]),
        // libcurl: headers only; the library is opened on first use (see its shim.h).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's mallopt, for the command's allocator settings (main.swift).
        .systemLibrary(name: "CMalloc"),
        // NFKC for station names, from the ICU libxml2 links anyway.
        .systemLibrary(name: "CICU", providers: [.apt(["libicu-dev"])]),

        // SHA-256 rounds and UTF-8 validation through vector instructions Swift cannot name.
        .target(name: "CSIMD"),
        .target(name: "StationModel", dependencies: ["CSQLite", "CZlib", "CSIMD"],
                linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libsqlite3.a", "-Xlinker", "-l:libz.a"])]),
        .target(name: "Ingest", dependencies: ["StationModel", "CLibXML2", "CICU"],
                // libxml2's headers live in their own folder (pkg-config would also link the shared library).
                swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])],
                linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libxml2.a", "-Xlinker", "-l:liblzma.a", "-Xlinker", "-l:libicui18n.a",
                                               "-Xlinker", "-l:libicuuc.a", "-Xlinker", "-l:libicudata.a", "-Xlinker", "-l:libz.a"]),
                                 // ICU is C++; a test build does not link the Swift runtime's libstdc++ otherwise.
                                 .linkedLibrary("stdc++")]),
        .target(name: "Priority", dependencies: ["StationModel"]),
        .target(name: "BundleDiff", dependencies: ["StationModel"]),
        .target(name: "BuildDB", dependencies: ["StationModel", "BundleDiff", "CZlib"]),
        .target(name: "Transfer", dependencies: ["StationModel", "BundleDiff", "CCurl", "CZlib"]),
        .executableTarget(name: "stationdb", dependencies: [
            "CMalloc", "StationModel", "Ingest", "Priority", "BuildDB", "BundleDiff", "Transfer",
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
