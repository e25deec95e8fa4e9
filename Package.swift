// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kuroneko",
    products: [
        .library(name: "Kuroneko", targets: ["Kuroneko"]),
        .executable(name: "kuroneko", targets: ["kuroneko"]),
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
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "Kuroneko", dependencies: ["CLibXML2"]),
        .target(name: "KuronekoSimulator", dependencies: ["Kuroneko"]),
        .target(name: "KuronekoServer", dependencies: ["Kuroneko", "KuronekoSimulator", "CMicroHTTPD"]),
        .executableTarget(name: "kuroneko", dependencies: ["Kuroneko", "KuronekoServer"]),
        .executableTarget(
            name: "ParserBenchmark",
            dependencies: ["Kuroneko", "CLibXML2"],
            path: "bench/ParserBenchmark"
        ),
        .target(
            name: "KuronekoTestSupport",
            dependencies: ["Kuroneko"],
            path: "Tests/KuronekoTestSupport"
        ),
        .testTarget(name: "KuronekoTests", dependencies: ["Kuroneko", "KuronekoTestSupport"]),
        .testTarget(name: "KuronekoSimulatorTests", dependencies: ["KuronekoSimulator", "KuronekoTestSupport"]),
        .testTarget(name: "KuronekoServerTests", dependencies: ["KuronekoServer", "KuronekoTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["kuroneko", "KuronekoTestSupport"]),
    ]
)
