import Foundation

/// Everything Kuroneko knows about one carrier, in one value: its names, the forms of its numbers, how its
/// site is asked and its pages read, how politely, where a person follows a parcel on the carrier's own
/// site, and how its shipping mails name it. One per carrier, in the carrier's folder (`Carriers/<Name>/`),
/// listed once in ``CarrierRegistry``; no other file names a carrier.
public struct CarrierDefinition: Sendable {
    public let carrier: Carrier
    /// The name as people in Japan know it (ヤマト運輸).
    public let name: String
    public let englishName: String
    /// Other names `--carrier` and `carrier=` accept, folded (lower case, no `-` or `_`).
    public let aliases: [String]
    /// The forms its numbers take.
    public let numberForms: [NumberForm]
    /// The forms in words, for messages: "10 or 12 digits".
    public let numberFormsInWords: String
    /// The carrier's site at its real address (for Yamato the form's full URL, which `--endpoint URL` means).
    public let defaultEndpoint: URL
    /// The site under an endpoint (the real one, a simulator, a fake).
    public let site: @Sendable (URL) -> any CarrierSite
    /// Reads a saved or fetched result page.
    public let parser: any CarrierPageParser
    public let politeness: Politeness
    /// The parcel on the carrier's own site, for a person.
    public let trackingLink: LinkTemplate
    /// Where the recipient changes a delivery or asks for it again; `nil` where the carrier has no such page.
    public let redeliveryLink: LinkTemplate?
    /// A link to the parcel that works from an e-mail (a GET), where ``trackingLink`` is a form's POST: the
    /// style the carrier's own mails use.
    public let mailLink: LinkTemplate?
    /// How its shipping mails name it.
    public let mail: MailHints
    /// The chip's colours in the web app (CSS colours).
    public let colors: (background: String, text: String)
    /// The fixed words of its pages (labels, headings, status words) that a masked page keeps.
    public let pageWords: [String]
    /// How long it keeps a parcel after a missed delivery, and whom to call.
    public let keeping: KeepingRule

    public init(
        carrier: Carrier, name: String, englishName: String, aliases: [String], numberForms: [NumberForm],
        numberFormsInWords: String, defaultEndpoint: URL, site: @escaping @Sendable (URL) -> any CarrierSite,
        parser: any CarrierPageParser, politeness: Politeness, trackingLink: LinkTemplate,
        redeliveryLink: LinkTemplate?, mail: MailHints, colors: (background: String, text: String),
        pageWords: [String] = [], keeping: KeepingRule = .common, mailLink: LinkTemplate? = nil
    ) {
        self.mailLink = mailLink
        self.carrier = carrier
        self.name = name
        self.englishName = englishName
        self.aliases = aliases
        self.numberForms = numberForms
        self.numberFormsInWords = numberFormsInWords
        self.defaultEndpoint = defaultEndpoint
        self.site = site
        self.parser = parser
        self.politeness = politeness
        self.trackingLink = trackingLink
        self.redeliveryLink = redeliveryLink
        self.mail = mail
        self.colors = colors
        self.pageWords = pageWords
        self.keeping = keeping
    }

    /// The parcel on the carrier's site as a link a customer can open from an e-mail; `nil` where there is none.
    public func link(forMail number: TrackingNumber) -> URL? {
        if let mailLink { return mailLink.url(for: number) }
        return trackingLink.method == .get ? trackingLink.url(for: number) : nil
    }

    /// The carrier's page to ask for redelivery or another day for the parcel, as a link (where it is one).
    public func redeliveryPage(for number: TrackingNumber) -> URL? {
        redeliveryLink.flatMap { $0.method == .get ? $0.url(for: number) : nil }
    }

    /// Whether a number of this form may be the carrier's.
    public func accepts(_ number: TrackingNumber) -> Bool {
        numberForms.contains { $0.accepts(number) }
    }

    /// How many requests at once and how far apart their starts are, by default.
    public struct Politeness: Sendable, Hashable {
        public let maxConcurrentRequests: Int
        public let minimumRequestInterval: Duration

        public init(maxConcurrentRequests: Int, minimumRequestInterval: Duration) {
            self.maxConcurrentRequests = maxConcurrentRequests
            self.minimumRequestInterval = minimumRequestInterval
        }
    }

    /// What in a shipping mail says the carrier: names in its text, the sender's domain, its tracking links
    /// and where their number is.
    public struct MailHints: Sendable, Hashable {
        /// Names and service names in the text (佐川急便, 飛脚宅配便).
        public let names: [String]
        /// The sender domains of the carrier's own mails.
        public let senderDomains: [String]
        /// The host (or parent domain) of its tracking links.
        public let linkHost: String
        /// The query fields that carry a number in those links.
        public let linkFields: [String]
        /// A path prefix whose next segment is the number (`/situation/tracking_no_hunt/NUMBER`).
        public let linkPathPrefix: String?
        /// The digit groups its numbers are printed in with hyphens, beyond 4-4-4 (書留's 3-2-5-1).
        public let printedGroups: [[Int]]

        public init(
            names: [String], senderDomains: [String], linkHost: String, linkFields: [String],
            linkPathPrefix: String? = nil, printedGroups: [[Int]] = []
        ) {
            self.names = names
            self.senderDomains = senderDomains
            self.linkHost = linkHost
            self.linkFields = linkFields
            self.linkPathPrefix = linkPathPrefix
            self.printedGroups = printedGroups
        }
    }
}

/// Reads a carrier's result page: a pure function of the bytes and a reference time.
public protocol CarrierPageParser: Sendable {
    func parse(_ body: some ContiguousBytes, charset: String?, expecting numbers: [TrackingNumber]?, now: Date)
        throws(TrackingPageError) -> [Shipment]
}

/// One form a carrier's numbers take: a length (or the international form) and the check its last digit
/// passes, if any is known.
public struct NumberForm: Sendable, Hashable {
    public enum Check: Sendable, Hashable {
        /// No check digit is known: any digits of the length.
        case none
        /// The last digit is the others, read as one number, modulo 7.
        case mod7
    }

    public let format: TrackingNumber.Format
    public let check: Check

    public init(_ format: TrackingNumber.Format, check: Check = .none) {
        self.format = format
        self.check = check
    }

    public func accepts(_ number: TrackingNumber) -> Bool {
        guard number.format == format else { return false }
        switch check {
        case .none: return true
        case .mod7: return number.passesMod7
        }
    }
}

/// A link to a carrier's page for one number: a GET of a URL, or a POST of a form (Yamato's page answers
/// a POST only). `{number}` in the URL or a field's value stands for the number's digits.
public struct LinkTemplate: Sendable, Hashable, Encodable {
    public enum Method: String, Sendable, Hashable, Encodable { case get, post }

    public let method: Method
    public let url: String
    public let fields: [String: String]

    public static func get(_ url: String) -> LinkTemplate { LinkTemplate(method: .get, url: url, fields: [:]) }

    public static func post(_ url: String, fields: [String: String]) -> LinkTemplate {
        LinkTemplate(method: .post, url: url, fields: fields)
    }

    /// The URL for one number (for a POST, the form's action).
    public func url(for number: TrackingNumber) -> URL? {
        URL(string: url.replacingOccurrences(of: "{number}", with: number.digits))
    }

    /// The form's fields for one number (empty for a GET).
    public func fields(for number: TrackingNumber) -> [String: String] {
        fields.mapValues { $0.replacingOccurrences(of: "{number}", with: number.digits) }
    }
}
