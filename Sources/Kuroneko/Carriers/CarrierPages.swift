import Foundation

/// Saved pages of any carrier: parsed by the carrier named, or by whichever carrier's layout the page has.
public enum CarrierPages {
    /// - Parameter carrier: whose page it is; `nil` tries each registered carrier's layout in turn, and refuses a page that is none of them, naming what each expected.
    public static func parse(
        _ body: Data, carrier: Carrier? = nil, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil,
        now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        if let carrier { return try parse(body, as: carrier, charset: charset, expecting: numbers, now: now) }
        // An older page of a carrier is named once, not refused three times.
        if let older = body.withUnsafeBytes({ CarrierPage.olderLayout(in: $0) }) {
            throw TrackingPageError(
                .unrecognizedLayout,
                "the page is \(older), which Kuroneko does not read: look the number up again "
                    + "(`kuroneko track NUMBER`), or save today's page from the carrier's site and parse that")
        }
        var refusals: [String] = []
        for candidate in Carrier.allCases {
            do {
                return try parse(body, as: candidate, charset: charset, expecting: numbers, now: now)
            } catch  where error.code == .unrecognizedLayout {
                refusals.append("\(candidate.englishName): \(error.message)")
            }
        }
        throw TrackingPageError(
            .unrecognizedLayout, "the page is no carrier's result page (" + refusals.joined(separator: "; ") + ")")
    }

    private static func parse(
        _ body: Data, as carrier: Carrier, charset: String?, expecting numbers: [TrackingNumber]?, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        try carrier.definition.parser.parse(body, charset: charset, expecting: numbers, now: now)
    }
}
