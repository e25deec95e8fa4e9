import Foundation

/// What a carrier does after a missed delivery: how many days after the first failed attempt it keeps the
/// parcel before sending it back (a cool parcel apart), and the number to call when its page names no office.
/// Each carrier's definition states its own (`../shared/notes/next-step.md` gathers the public sources); the
/// carrier's own 保管期限 on its notice is the last word, so people are told "about".
public struct KeepingRule: Sendable, Hashable {
    /// Days kept after the first failed attempt.
    public let days: Int
    /// Days a cool parcel (クール) is kept.
    public let coolDays: Int
    /// Whom to call when the page names no office with a telephone: the carrier's service centre.
    public let serviceCentre: CarrierOffice?

    public init(days: Int, coolDays: Int, serviceCentre: CarrierOffice? = nil) {
        self.days = days
        self.coolDays = coolDays
        self.serviceCentre = serviceCentre
    }

    /// The rule every carrier's sources fit: the first failed attempt plus 7 days, a cool parcel plus 3.
    public static let common = KeepingRule(days: 7, coolDays: 3)

    /// The role a service centre is given as an office.
    public static let serviceCentreRole = "サービスセンター"
}
