import Foundation
import KuronekoHTTP

/// The parcel dashboard: a page and its scripts, styles and icons, compiled into the binary from the
/// `Assets` folder (by the EmbedWebAssets plugin) and served by ``register(into:)``.
///
/// Three files are entry points at fixed addresses, read fresh by every visit (`Cache-Control: no-cache`
/// with an `ETag`): the page (at `/`, at `/parcel/NUMBER`, at `/settings` and at `/people`, so each view's link can be reloaded), the
/// service worker (`/sw.js`, whose scope must be `/`) and the manifest. Everything else is under
/// `/assets/VERSION/`, where VERSION is a fingerprint of all those files: it changes with any of them, so
/// they are cached for a year. In the entry files `__ASSETS__` stands for that folder, `__VERSION__` for the
/// fingerprint, `__PRECACHE__` for the list of every asset's address and `__DEMO__` for whether the server answers
/// from its simulator (`1`) or not (`0`).
public struct WebApp: Sendable {
    /// The app compiled into this binary.
    public static let embedded = WebApp(
        files: EmbeddedAssets.files.map { ($0.path, Data(base64Encoded: $0.base64) ?? Data()) })
    /// The same app for `serve --demo`: its empty list offers a number of each carrier to try.
    public static let embeddedDemo = WebApp(
        files: EmbeddedAssets.files.map { ($0.path, Data(base64Encoded: $0.base64) ?? Data()) }, demo: true)

    static let entryPaths: Set<String> = ["index.html", "sw.js", "manifest.webmanifest"]

    /// The fingerprint of the assets.
    public let version: String
    /// Where the assets are served: `/assets/VERSION`.
    public let assetsPrefix: String
    public let page: WebAsset
    public let serviceWorker: WebAsset
    public let manifest: WebAsset
    /// The fingerprinted files by their path under ``assetsPrefix``.
    public let assets: [String: WebAsset]

    /// Only scripts, styles, images, manifest and service worker from this server; no inline script or style,
    /// no plugins, no framing; forms go to this server or to the origins given (a carrier whose tracking page
    /// answers POSTs only, so the parcel page's link there is a form).
    public static func contentSecurityPolicy(formOrigins: [String]) -> String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action " + (["'self'"] + formOrigins).joined(separator: " ") + "; frame-ancestors 'none'"
    }

    /// The page's policy: forms to this server and to ``formOrigins``.
    public var contentSecurityPolicy: String { Self.contentSecurityPolicy(formOrigins: formOrigins) }
    /// Origins the page's forms may post to (the carriers' own tracking forms).
    public var formOrigins: [String] = []

    /// An app from its files, by path under the assets folder (``embedded`` is the one compiled in).
    public init(files: [(path: String, data: Data)], demo: Bool = false) {
        let plain = files.filter { !Self.entryPaths.contains($0.path) }
        var fingerprintInput = Data()
        for file in plain {
            fingerprintInput.append(Data(file.path.utf8))
            fingerprintInput.append(0)
            fingerprintInput.append(file.data)
        }
        let version = String(ConditionalRequestMiddleware.tag(for: fingerprintInput).dropFirst().prefix(12))
        let assetsPrefix = "/assets/" + version
        self.version = version
        self.assetsPrefix = assetsPrefix
        var assets: [String: WebAsset] = [:]
        for file in plain { assets[file.path] = WebAsset(path: file.path, body: file.data) }
        self.assets = assets
        let precache = ["/"] + assets.keys.sorted().map { assetsPrefix + "/" + $0 }
        let precacheJSON =
            "[" + precache.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]"
        let fill = [
            "__ASSETS__": assetsPrefix, "__VERSION__": version, "__PRECACHE__": precacheJSON, "__DEMO__": demo ? "1" : "0",
        ]
        page = Self.entry("index.html", in: files, filling: fill)
        serviceWorker = Self.entry("sw.js", in: files, filling: fill)
        manifest = Self.entry("manifest.webmanifest", in: files, filling: fill)
    }

    private static func entry(_ path: String, in files: [(path: String, data: Data)], filling: [String: String])
        -> WebAsset
    {
        var text = files.first { $0.path == path }.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
        for (placeholder, value) in filling { text = text.replacingOccurrences(of: placeholder, with: value) }
        return WebAsset(path: path, body: Data(text.utf8))
    }

    /// Adds `GET /`, `/parcel/{number}`, `/settings`, `/people`, `/sw.js`, `/manifest.webmanifest` and `/assets/{version}/{path...}`.
    public func register(into router: inout Router) {
        let app = self
        let pageHeaders = [
            ("Content-Security-Policy", contentSecurityPolicy), ("Referrer-Policy", "no-referrer"),
        ]
        router.add("GET", "/") { request, _ in
            app.page.response(to: request, cacheControl: "no-cache", extraHeaders: pageHeaders)
        }
        router.add("GET", "/parcel/{number}") { request, _ in
            app.page.response(to: request, cacheControl: "no-cache", extraHeaders: pageHeaders)
        }
        router.add("GET", "/settings") { request, _ in
            app.page.response(to: request, cacheControl: "no-cache", extraHeaders: pageHeaders)
        }
        router.add("GET", "/people") { request, _ in
            app.page.response(to: request, cacheControl: "no-cache", extraHeaders: pageHeaders)
        }
        router.add("GET", "/join") { request, _ in
            app.page.response(to: request, cacheControl: "no-cache", extraHeaders: pageHeaders)
        }
        router.add("GET", "/sw.js") { request, _ in
            app.serviceWorker.response(to: request, cacheControl: "no-cache", extraHeaders: [])
        }
        router.add("GET", "/manifest.webmanifest") { request, _ in
            app.manifest.response(to: request, cacheControl: "no-cache", extraHeaders: [])
        }
        router.add("GET", "/assets/{version}/{path...}") { request, parameters in
            guard parameters["version"] == app.version, let asset = app.assets[parameters["path"] ?? ""] else {
                return .problem(
                    status: 404, title: "Not Found",
                    detail: "no such file in this version of the web app; reload the page at /")
            }
            return asset.response(
                to: request, cacheControl: "public, max-age=31536000, immutable", extraHeaders: [])
        }
    }
}
