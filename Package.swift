// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Kuroneko",
    // The Apple platforms the library could build on (Synchronization's Mutex sets the floor); only Linux
    // is built and tested here. On Linux the platform list does not apply.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Kuroneko", targets: ["Kuroneko"]),
        .executable(name: "kuroneko", targets: ["kuroneko"]),
    ],
    // Named by their public URLs; Package.resolved pins the versions. Where the public host cannot be reached,
    // scripts/bootstrap points SwiftPM at mirrors (../shared/vendor, or KURONEKO_PACKAGE_MIRRORS).
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.10.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.3.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.11.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev", "libgnutls28-dev"])]
        ),
        .target(name: "Kuroneko", dependencies: ["CLibXML2", "CCurl"]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "KuronekoHTTP",
            dependencies: [
                "CMicroHTTPD", "CZlib", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // The watch list behind a protocol: models, statements, migrations, the SQLite engine, the outbox.
        .target(
            name: "KuronekoStore",
            dependencies: ["Kuroneko", "CSQLite", .product(name: "Logging", package: "swift-log")]),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // Random secrets, hashes, HMAC, P-256 keys and base64url, over OpenSSL's libcrypto.
        .target(name: "KuronekoCrypto", dependencies: ["CCrypto"]),
        // People's credentials: scrypt password hashes and passkeys (WebAuthn) checked; knows no storage.
        .target(name: "KuronekoAccounts", dependencies: ["KuronekoCrypto"]),
        // Notifications out (channels, webhooks, Web Push, mail), mail in (IMAP) and MQTT; knows no storage.
        .target(name: "KuronekoNotify", dependencies: ["Kuroneko", "KuronekoCrypto", "CCrypto", "CCurl", "CMosquitto"]),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // Shops' sheets read (CSV and its encodings, the layouts of label tools and marketplaces) for the import:
        // what the CLI and the server both take.
        .target(name: "KuronekoSheets", dependencies: ["Kuroneko", "KuronekoStore"]),
        .target(
            name: "KuronekoPostgres",
            dependencies: ["Kuroneko", "KuronekoStore", "CPostgres", .product(name: "Logging", package: "swift-log")]),
        .target(name: "KuronekoProcess"),
        .target(name: "KuronekoSimulator", dependencies: ["Kuroneko", "KuronekoHTTP"]),
        .executableTarget(name: "EmbedWebAssetsTool", path: "Plugins/EmbedWebAssetsTool"),
        .plugin(name: "EmbedWebAssets", capability: .buildTool(), dependencies: ["EmbedWebAssetsTool"]),
        .target(
            name: "KuronekoWebApp", dependencies: ["KuronekoHTTP"], exclude: ["Assets"],
            plugins: ["EmbedWebAssets"]),
        .target(
            name: "KuronekoServer",
            dependencies: [
                "Kuroneko", "KuronekoHTTP", "KuronekoStore", "KuronekoPostgres", "KuronekoNotify", "KuronekoWebApp",
                "KuronekoSheets", "KuronekoCrypto", "KuronekoAccounts", "CQRencode", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            exclude: ["Assets"], plugins: ["EmbedWebAssets"]),
        .executableTarget(
            name: "kuroneko",
            dependencies: [
                "Kuroneko", "KuronekoHTTP", "KuronekoServer", "KuronekoSimulator", "KuronekoStore", "KuronekoNotify",
                "KuronekoProcess", "KuronekoWebApp", "KuronekoSheets", "KuronekoCrypto", "KuronekoAccounts",
                .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "ParserBenchmark",
            dependencies: ["Kuroneko", "CLibXML2"],
            path: "bench/ParserBenchmark"
        ),
        .executableTarget(
            name: "ForecastBenchmark", dependencies: ["Kuroneko", "KuronekoTestSupport"], path: "bench/ForecastBenchmark"),
        .executableTarget(name: "BareServer", dependencies: ["KuronekoHTTP"], path: "bench/BareServer"),
        .executableTarget(
            name: "HitPathBenchmark",
            dependencies: ["Kuroneko", "KuronekoHTTP", "KuronekoServer", "KuronekoTestSupport", "KuronekoStore"],
            path: "bench/HitPathBenchmark"),
        .target(
            name: "KuronekoTestSupport",
            dependencies: ["Kuroneko", "KuronekoHTTP", "KuronekoNotify", "KuronekoCrypto", "KuronekoProcess"],
            path: "Tests/KuronekoTestSupport"
        ),
        .testTarget(name: "KuronekoTests", dependencies: ["Kuroneko", "KuronekoTestSupport"]),
        .testTarget(
            name: "KuronekoSimulatorTests", dependencies: ["KuronekoSimulator", "KuronekoHTTP", "KuronekoTestSupport"]),
        .testTarget(
            name: "KuronekoServerTests",
            dependencies: [
                "KuronekoServer", "KuronekoHTTP", "KuronekoStore", "KuronekoNotify", "KuronekoWebApp", "KuronekoSheets",
                "KuronekoCrypto", "KuronekoAccounts", "KuronekoTestSupport",
            ]),
        .testTarget(
            name: "KuronekoStoreTests",
            dependencies: [
                "KuronekoStore", "KuronekoNotify", "KuronekoServer", "KuronekoPostgres", "KuronekoTestSupport",
                "KuronekoHTTP", "KuronekoCrypto", "KuronekoAccounts", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "kuroneko", "KuronekoServer", "KuronekoSimulator", "KuronekoHTTP", "KuronekoStore", "KuronekoNotify",
                "KuronekoProcess", "KuronekoSheets", "KuronekoCrypto", "KuronekoAccounts",
                "KuronekoPostgres", "KuronekoTestSupport",
            ]),
    ]
)
