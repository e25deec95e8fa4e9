import Foundation

extension Carrier {
    /// 福山通運: business and heavy goods.
    public static let fukuyama = Carrier(registered: "fukuyama")
}

extension CarrierDefinition {
    /// What public scrapers show of Fukuyama's pages (no saved page is public): `../shared/fixtures/fukuyama/FACTS.md`.
    /// Its numbers have 11 digits and no check digit is public, so any 11 digits are taken, and Fukuyama is
    /// asked after Japan Post for an 11-digit number whose 書留 check passes.
    static let fukuyama = CarrierDefinition(
        carrier: .fukuyama, name: "福山通運", englishName: "Fukuyama Transporting", aliases: ["fukutsu"],
        numberForms: [NumberForm(.elevenDigits)], numberFormsInWords: "11 digits (no check digit is public)",
        defaultEndpoint: URL(string: "https://corp.fukutsu.co.jp")!,
        site: { FukuyamaSite(origin: $0.absoluteString.trimmingTrailingSlashes) }, parser: FukuyamaPageParser(),
        // A site never asked by Kuroneko before: one request at a time, two seconds apart.
        politeness: Politeness(maxConcurrentRequests: 1, minimumRequestInterval: .seconds(2)),
        trackingLink: .get("https://corp.fukutsu.co.jp/situation/tracking_no_hunt/{number}"),
        // No public source shows a redelivery page of Fukuyama's.
        redeliveryLink: nil,
        mail: MailHints(
            names: ["福山通運"], senderDomains: ["fukutsu.co.jp"], linkHost: "fukutsu.co.jp",
            linkFields: ["tracking_no", "data[TrackingNo][tracking_no]"],
            linkPathPrefix: "/situation/tracking_no_hunt/", printedGroups: [[3, 4, 4]]),
        colors: ("#00843d", "#ffffff"),
        pageWords: FukuyamaVocabulary.pageWords)
}

/// Fukuyama: one number by the GET of its detail page (`/situation/tracking_no_hunt/NUMBER`, the whole
/// history); two to ten by the form `/situation/tracking_no`, whose per-page token (`formValiNo`) comes from
/// a GET of the form first, answered with a list of each number's latest state.
struct FukuyamaSite: CarrierSite {
    let origin: String
    var carrier: Carrier { .fukuyama }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = FukuyamaPageParser()

    static let detailPath = "/situation/tracking_no_hunt/"
    static let formPath = "/situation/tracking_no"
    static let tokenField = "data[TrackingNo][formValiNo]"

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        if numbers.count == 1 {
            let url = try Self.url(origin + Self.detailPath + numbers[0].digits)
            let response = try await exchange.fetch(url)
            return try read(response, from: url) { body, charset throws(TrackingPageError) in
                try parser.parse(body, charset: charset, expecting: numbers, now: now)
            }
        }
        let url = try Self.url(origin + Self.formPath)
        let form = try await exchange.fetch(url)
        let token = try read(form, from: url) { body, charset throws(TrackingPageError) in
            try FukuyamaPageParser.formToken(body, charset: charset)
        }
        var fields = [("_method", "POST"), (Self.tokenField, token)]
        for (offset, number) in numbers.enumerated() {
            fields.append(("data[TrackingNo][tracking_no\(offset + 1)]", number.digits))
        }
        let response = try await exchange.fetch(url, form: fields)
        return try read(response, from: url) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
    }
}
