import Foundation
import Synchronization

/// Sagawa: one number by the GET of `okurijosearch.do`; two to ten by the JSF form `okurijoinput.jsp`,
/// whose hidden state (`jsf_tree_64`, `jsf_state_64`) comes from a GET of the form first. The state is
/// kept and reused for later POSTs (every answer carries a fresh one, which replaces it); when the site
/// refuses it (answers the empty form instead of results) it is fetched again and the POST sent once more.
final class SagawaSite: CarrierSite {
    let origin: String
    var carrier: Carrier { .sagawa }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = SagawaPageParser()
    private let state = Mutex<SagawaFormState?>(nil)

    static let searchPath = "/p/web/okurijosearch.do"
    static let formPath = "/p/sagawa/web/okurijoinput.jsp"

    init(origin: URL) {
        self.origin = origin.absoluteString.trimmingTrailingSlashes
    }

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        if numbers.count == 1 {
            let url = try Self.url(origin + Self.searchPath + "?" + FormEncoding.encode([("okurijoNo", numbers[0].digits)]))
            let response = try await exchange.fetch(url)
            return try read(response, from: url) { body, charset throws(TrackingPageError) in
                try parser.parse(body, charset: charset, expecting: numbers, now: now)
            }
        }
        let url = try Self.url(origin + Self.formPath)
        let kept = state.withLock { $0 }
        var current: SagawaFormState
        if let kept {
            current = kept
        } else {
            current = try await freshState(from: url, exchange: exchange)
        }
        var response = try await exchange.fetch(url, form: current.fields(for: numbers))
        if kept != nil, !SagawaFormState.hasResults(response.body) {
            // The kept state was refused: fetch the form again and ask once more.
            current = try await freshState(from: url, exchange: exchange)
            response = try await exchange.fetch(url, form: current.fields(for: numbers))
        }
        if let next = SagawaFormState(page: response.body) { state.withLock { $0 = next } }
        return try read(response, from: url) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
    }

    private func freshState(from url: URL, exchange: UpstreamExchange) async throws -> SagawaFormState {
        let form = try await exchange.fetch(url)
        guard let fresh = SagawaFormState(page: form.body) else {
            throw UpstreamAttemptFailure.page(
                RefusedPage(
                    carrier: .sagawa,
                    error: TrackingPageError(
                        .unrecognizedLayout,
                        "Sagawa's form page has no jsf_tree_64 and jsf_state_64 fields; expected the ten-number form"),
                    endpoint: url, body: form.body, declaredCharset: form.declaredCharset))
        }
        state.withLock { $0 = fresh }
        return fresh
    }
}

/// The JSF form's hidden state, read from any page that carries the form.
struct SagawaFormState: Sendable, Hashable {
    let tree: String
    let state: String

    init?(page: Data) {
        let root: HTMLElement? = page.withUnsafeBytes { bytes in try? HTMLTree.parse(bytes, charset: nil) }
        func value(_ name: String) -> String? {
            root?.first { $0.name == "input" && $0.attributes["name"] == name }?.attributes["value"]
        }
        guard let tree = value("jsf_tree_64"), let state = value("jsf_state_64"), !tree.isEmpty, !state.isEmpty else {
            return nil
        }
        self.tree = tree
        self.state = state
    }

    init(tree: String, state: String) {
        self.tree = tree
        self.state = state
    }

    /// The form's fields for up to ten numbers, as the site's own submit button sends them.
    func fields(for numbers: [TrackingNumber]) -> [(String, String)] {
        var fields: [(String, String)] = []
        for index in 1...BatchPlan.maximumBatchSize {
            fields.append(("main:no\(index)", index <= numbers.count ? numbers[index - 1].digits : ""))
        }
        fields += [
            ("main:correlation", "1"), ("main:toiStart", "Track it"), ("main_SUBMIT", "1"), ("main:_link_hidden_", ""),
            ("jsf_tree_64", tree), ("jsf_state_64", state), ("jsf_viewid", "/web/okurijoinput.jsp"),
        ]
        return fields
    }

    /// Whether a page holds results (the index area) rather than the empty form.
    static func hasResults(_ page: Data) -> Bool {
        let marker = Array("table_okurijo_index".utf8)
        return page.withUnsafeBytes { bytes in
            guard bytes.count >= marker.count else { return false }
            return (0...(bytes.count - marker.count)).contains { start in
                marker.indices.allSatisfy { bytes[start + $0] == marker[$0] }
            }
        }
    }
}
