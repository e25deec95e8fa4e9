import Foundation

extension Carrier {
    /// 西濃運輸 (カンガルー便).
    public static let seino = Carrier(registered: "seino")
}

extension CarrierDefinition {
    /// What public scrapers show of Seino's pages (no saved page is public): `../shared/fixtures/seino/FACTS.md`.
    /// Its numbers have 10 digits (an old validator took 12 as well; no source shows one) and no check digit
    /// is public, so Seino is asked after Sagawa for a 10-digit number.
    static let seino = CarrierDefinition(
        carrier: .seino, name: "西濃運輸", englishName: "Seino Transportation", aliases: ["kangaroo"],
        numberForms: [NumberForm(.tenDigits)], numberFormsInWords: "10 digits (no check digit is public)",
        defaultEndpoint: URL(string: "https://track.seino.co.jp")!,
        site: { SeinoSite(origin: $0.absoluteString.trimmingTrailingSlashes) }, parser: SeinoPageParser(),
        // A site never asked by Kuroneko before: one request at a time, two seconds apart.
        politeness: Politeness(maxConcurrentRequests: 1, minimumRequestInterval: .seconds(2)),
        trackingLink: .get("https://track.seino.co.jp/cgi-bin/gnpquery.pgm?GNPNO1={number}"),
        redeliveryLink: .get("https://track.seino.co.jp/redeli/menuDelivery.do"),
        mail: MailHints(
            names: ["西濃運輸", "カンガルー便"], senderDomains: ["seino.co.jp"], linkHost: "seino.co.jp",
            linkFields: SeinoSite.numberFields),
        colors: ("#1f7a3a", "#ffffff"),
        pageWords: SeinoVocabulary.pageWords)
}

/// Seino: one GET of `gnpquery.pgm` with up to ten numbers (`GNPNO1`…`GNPNO9`, and `GNPNOA` for the tenth,
/// as the site's own form names them), answered with a summary row and a detail table per number.
struct SeinoSite: CarrierSite {
    let origin: String
    var carrier: Carrier { .seino }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = SeinoPageParser()

    static let queryPath = "/cgi-bin/gnpquery.pgm"
    static let numberFields = (1...9).map { "GNPNO\($0)" } + ["GNPNOA"]

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        let query = FormEncoding.encode(zip(Self.numberFields, numbers).map { ($0, $1.digits) })
        let url = try Self.url(origin + Self.queryPath + "?" + query)
        let response = try await exchange.fetch(url)
        return try read(response, from: url) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
    }
}
