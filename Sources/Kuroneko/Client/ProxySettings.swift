import Foundation

/// Which proxy an outbound request goes through, read once from the standard variables: `HTTPS_PROXY`
/// (or `https_proxy`) for https URLs, `HTTP_PROXY` (or `http_proxy`) for http URLs, and `NO_PROXY`
/// (or `no_proxy`): a comma-separated list of host names, each matching itself and its subdomains (a
/// leading dot is ignored), or `*` for every host. An empty value means no proxy. The lower-case name wins
/// when both are set, as curl and most tools read them.
///
/// Kuroneko decides here and tells libcurl exactly (its own reading of the environment ignores upper-case
/// `HTTP_PROXY`), so what is documented is what happens, for carrier pages and channels alike.
public struct ProxySettings: Sendable, Hashable {
    public var https: String?
    public var http: String?
    /// Host names (lower case, no leading dot) that are reached directly; `["*"]` for all.
    public var exceptions: [String]

    public init(https: String? = nil, http: String? = nil, exceptions: [String] = []) {
        self.https = https.flatMap { $0.isEmpty ? nil : $0 }
        self.http = http.flatMap { $0.isEmpty ? nil : $0 }
        self.exceptions = exceptions
    }

    /// No proxy at all.
    public static let direct = ProxySettings()

    /// The settings the process environment (or `environment`) gives.
    public static func from(environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
        func value(_ name: String) -> String? {
            (environment[name.lowercased()] ?? environment[name.uppercased()]).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        let exceptions = (value("no_proxy") ?? "").split(separator: ",").map {
            var entry = $0.trimmingCharacters(in: .whitespaces).lowercased()
            while entry.hasPrefix(".") { entry.removeFirst() }
            return entry
        }.filter { !$0.isEmpty }
        return ProxySettings(https: value("https_proxy"), http: value("http_proxy"), exceptions: exceptions)
    }

    /// The proxy for `url`, or `nil` when it is reached directly.
    public func proxy(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let chosen = scheme == "https" ? https : scheme == "http" ? http : nil
        guard let chosen else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        for entry in exceptions where entry == "*" || bare == entry || bare.hasSuffix("." + entry) {
            return nil
        }
        return chosen
    }
}
