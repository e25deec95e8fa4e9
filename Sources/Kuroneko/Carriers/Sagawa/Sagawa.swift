import Foundation

extension Carrier {
    /// 佐川急便.
    public static let sagawa = Carrier(registered: "sagawa")
}

extension CarrierDefinition {
    static let sagawa = CarrierDefinition(
        carrier: .sagawa, name: "佐川急便", englishName: "Sagawa Express", aliases: [],
        numberForms: [NumberForm(.twelveDigits, check: .mod7), NumberForm(.tenDigits)],
        numberFormsInWords: "10 or 12 digits",
        defaultEndpoint: URL(string: "https://k2k.sagawa-exp.co.jp")!,
        site: { SagawaSite(origin: $0) }, parser: SagawaPageParser(),
        // Reported to refuse automated clients: one request at a time, a second apart.
        politeness: Politeness(maxConcurrentRequests: 1, minimumRequestInterval: .seconds(1)),
        trackingLink: .get("https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo={number}"),
        // Its page of the parcel, which offers the change.
        redeliveryLink: .get("https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo={number}"),
        mail: MailHints(
            names: ["佐川急便", "飛脚宅配便", "佐川"], senderDomains: ["sagawa-exp.co.jp"], linkHost: "sagawa-exp.co.jp",
            linkFields: ["okurijoNo"]),
        colors: ("#0b4ea2", "#ffffff"),
        // The first attempt plus 7 days, 飛脚クール便 plus 3; its page names the delivering office and telephone.
        keeping: KeepingRule(days: 7, coolDays: 3))
}

extension SagawaPageParser: CarrierPageParser {}
