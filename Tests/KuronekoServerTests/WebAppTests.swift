import Foundation
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import KuronekoWebApp
import Testing

@Suite("The web app's files, as the server sends them", .timeLimit(.minutes(10)))
struct WebAppTests {
    let harness: Harness
    let app = WebApp.embedded

    init() async {
        harness = await Harness(webApp: .embedded)
    }

    @Test("the page: at / and at a parcel's address, never cached without asking, a policy against inline script")
    func page() async throws {
        let page = await harness.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Cache-Control") == "no-cache")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src 'self';"))
        #expect(policy.contains("style-src 'self';"))
        #expect(!policy.contains("unsafe"))
        #expect(policy.contains("frame-ancestors 'none'"))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("\(app.assetsPrefix)/app.js"))
        #expect(!html.contains("__ASSETS__"))
        // No inline script, style or handler for the policy to refuse.
        for script in html.components(separatedBy: "<script").dropFirst() {
            #expect(script.prefix(while: { $0 != ">" }).contains("src="))
        }
        #expect(!html.contains("<style") && !html.contains(" style=") && !html.contains(" onclick="))
        let parcel = await harness.get("/parcel/4455-6677-8834")
        #expect(parcel.status == 200 && parcel.body == page.body)
        #expect(parcel.header("Content-Security-Policy") == policy)
    }

    @Test("every file the page, the manifest and the service worker name is served with its type, cached a year")
    func assetsReferencedExist() async throws {
        let html = String(decoding: await harness.get("/").body, as: UTF8.self)
        let manifest = await harness.get("/manifest.webmanifest")
        #expect(manifest.header("Content-Type") == "application/manifest+json")
        let manifestJSON = try #require(
            try JSONSerialization.jsonObject(with: manifest.body) as? [String: Any])
        let icons = try #require(manifestJSON["icons"] as? [[String: Any]])
        let worker = String(decoding: await harness.get("/sw.js").body, as: UTF8.self)
        #expect(!worker.contains("__PRECACHE__") && !worker.contains("__VERSION__"))
        var named = Set(Self.references(in: html, prefix: app.assetsPrefix + "/"))
        named.formUnion(icons.compactMap { $0["src"] as? String })
        named.formUnion(Self.references(in: worker, prefix: app.assetsPrefix + "/"))
        #expect(named.count == app.assets.count, "every asset is named somewhere: \(named.sorted())")
        for path in named.sorted() {
            let response = await harness.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            let type = response.header("Content-Type") ?? ""
            switch path.split(separator: ".").last {
            case "js": #expect(type == "text/javascript; charset=utf-8")
            case "css": #expect(type == "text/css; charset=utf-8")
            case "svg": #expect(type == "image/svg+xml")
            case "png": #expect(type == "image/png" && response.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            default: Issue.record("unexpected file \(path)")
            }
        }
    }

    @Test("modules import only files that exist, by relative path")
    func moduleImports() async throws {
        for (path, asset) in app.assets where path.hasSuffix(".js") {
            let source = String(decoding: asset.body, as: UTF8.self)
            for line in source.split(separator: "\n") where line.hasPrefix("import ") {
                let target = try #require(line.split(separator: "\"").dropFirst().first, "\(path): \(line)")
                #expect(target.hasPrefix("./"), "\(path) imports \(target)")
                #expect(app.assets[String(target.dropFirst(2))] != nil, "\(path) imports missing \(target)")
            }
        }
    }

    @Test("gzip when accepted, the same bytes once unzipped; ETag and 304 for both forms; HEAD without a body")
    func compressionAndConditional() async throws {
        let path = app.assetsPrefix + "/app.js"
        let plain = await harness.get(path)
        let zipped = await harness.get(path, headers: ["Accept-Encoding": "gzip, br"])
        #expect(plain.header("Content-Encoding") == nil && zipped.header("Content-Encoding") == "gzip")
        #expect(try await gunzip(zipped.body) == plain.body)
        #expect(zipped.body.count < plain.body.count)
        #expect(plain.headers.filter { $0.name.lowercased() == "vary" }.map(\.value) == ["Accept-Encoding"])
        #expect(zipped.headers.filter { $0.name.lowercased() == "vary" }.map(\.value) == ["Accept-Encoding"])
        for (response, encoding) in [(plain, ""), (zipped, "gzip")] {
            let tag = try #require(response.header("ETag"))
            let again = await harness.get(path, headers: ["If-None-Match": tag, "Accept-Encoding": encoding])
            #expect(again.status == 304 && again.body.isEmpty)
        }
        let page = await harness.get("/")
        let revalidated = await harness.get("/", headers: ["If-None-Match": page.header("ETag") ?? ""])
        #expect(revalidated.status == 304)
        let head = await harness.send("HEAD", path)
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/javascript; charset=utf-8")
    }

    @Test("another version, a missing file, a way out of the folder or a POST: 404 or 405, never a file")
    func hostileAddresses() async throws {
        for path in [
            "/assets/000000000000/app.js", app.assetsPrefix + "/nothing.js", app.assetsPrefix + "/../sw.js",
            app.assetsPrefix + "/%2e%2e/sw.js", app.assetsPrefix + "/index.html", app.assetsPrefix + "/",
            "/assets/" + app.version, "/parcel/1/2", "/index.html",
        ] {
            let response = await harness.get(path)
            #expect(response.status == 404, "\(path) answered \(response.status)")
            #expect(response.header("Content-Type") == "application/problem+json", "\(path)")
        }
        let post = await harness.send("POST", "/", json: "{}")
        #expect(post.status == 405)
        let long = await harness.get("/assets/\(app.version)/" + String(repeating: "a/", count: 2000) + "x.js")
        #expect(long.status == 404)
    }

    @Test("the fingerprint follows the files: one byte changed in a module gives another folder")
    func fingerprint() {
        let files: [(path: String, data: Data)] = [
            ("index.html", Data("<script src=\"__ASSETS__/a.js\"></script>".utf8)), ("a.js", Data("1".utf8)),
        ]
        let first = WebApp(files: files)
        let same = WebApp(files: files)
        let changed = WebApp(files: [files[0], ("a.js", Data("2".utf8))])
        #expect(first.version == same.version)
        #expect(first.version != changed.version)
        #expect(String(decoding: changed.page.body, as: UTF8.self).contains("/assets/\(changed.version)/a.js"))
        // The page is an entry, not an asset: changing it keeps the folder.
        let newPage = WebApp(files: [("index.html", Data("<p>".utf8)), files[1]])
        #expect(newPage.version == first.version)
    }

    @Test("without the web app, / is not found and the API is unchanged")
    func apiAlone() async {
        let alone = await Harness()
        #expect(await alone.get("/").status == 404)
        #expect(await alone.get("/healthz").status == 200)
    }

    /// Every `"PREFIX…"` address quoted in a text.
    private static func references(in text: String, prefix: String) -> [String] {
        text.components(separatedBy: "\"").filter { $0.hasPrefix(prefix) }
    }
}
