import Foundation

/// What a person does after a missed delivery: until when the carrier keeps the parcel and whom to call. The
/// keeping date follows the carrier's ``KeepingRule`` (public sources, 2026: the day of the first failed attempt
/// plus 7 days, plus 3 for a cool parcel); an estimate, which the carrier's own 保管期限 on its notice overrides.
public struct MissedDelivery: Sendable, Hashable {
    /// The day of the first failed attempt since the parcel last moved on (a redelivery that fails again does
    /// not extend the keeping).
    public let firstAttempt: JapanDateTime
    /// The last day the carrier keeps it (a date).
    public let keptUntil: JapanDateTime
    /// Whether it is a cool parcel, kept a shorter time.
    public let cool: Bool
    /// The office the page names with a telephone (the delivering one first), else the carrier's service centre.
    public let office: CarrierOffice?

    /// The missed delivery `shipment` is in, or `nil` when its latest news is not a failed attempt (or held
    /// after one).
    public init?(_ shipment: Shipment) {
        guard [.attemptFailed, .availableForPickup].contains(shipment.status.code), shipment.returnLeg == nil
        else { return nil }
        // Back along the rows at the delivering office (attempts, redeliveries, held), the earliest failed
        // attempt; a row of the parcel moving on ends the search. Held straight after going out for delivery
        // is a failed attempt too (Sagawa writes ↓配達中 ⇒保管中); held on arrival, before any attempt, is not.
        var first: JapanDateTime?
        let events = shipment.events
        for index in events.indices.reversed() {
            let event = events[index]
            guard [.attemptFailed, .availableForPickup, .outForDelivery].contains(event.code) else { break }
            let heldAfterAttempt =
                event.code == .availableForPickup && index > 0 && events[index - 1].code == .outForDelivery
            if event.code == .attemptFailed || heldAfterAttempt, let at = event.at { first = at }
        }
        guard let first else { return nil }
        let cool = shipment.product.map { $0.contains("クール") || $0.contains("チルド") } ?? false
        let rule = shipment.carrier.definition.keeping
        let days = cool ? rule.coolDays : rule.days
        firstAttempt = first
        let last = JapanDateTime(first.instant.addingTimeInterval(Double(days) * 86_400))
        keptUntil = JapanDateTime(year: last.year, month: last.month, day: last.day) ?? last
        self.cool = cool
        let offices = (shipment.offices ?? []).filter { $0.telephone?.isEmpty == false }
        office =
            offices.first { $0.role.contains("配達") || $0.role.lowercased().contains("deliver") } ?? offices.first
            ?? rule.serviceCentre
    }

    /// The hour (Japan time) of the reminder the day before the parcel goes back.
    public static let reminderHour = 9

    /// The reminder the day before the parcel goes back: a key naming the keeping (its first attempt and last day,
    /// so a new missed delivery is reminded again) and the moment, 09:00 the day before the last day.
    public var reminder: (key: String, at: Date) {
        let dayBefore = JapanDateTime(keptUntil.instant.addingTimeInterval(-86_400))
        let at =
            JapanDateTime(
                year: dayBefore.year, month: dayBefore.month, day: dayBefore.day,
                time: .init(hour: Self.reminderHour, minute: 0))?.instant ?? dayBefore.instant
        return ("\(firstAttempt.iso8601)/\(keptUntil.dateText)", at)
    }

    /// The reminder's sentences: the parcel goes back after its last day unless a redelivery is asked for.
    public func reminderSentence(japanese: Bool) -> String {
        let kept =
            japanese
            ? "保管期限は\(keptUntil.month)月\(keptUntil.day)日頃で、過ぎると差出人に返送されます。"
            : "It is kept until about \(keptUntil.month)/\(keptUntil.day); after that it goes back to the sender. "
        return kept + ask(japanese: japanese)
    }

    /// One or two plain sentences: until when it is kept, to ask for a redelivery (on the carrier's page, or by
    /// telephone to the office).
    public func sentence(japanese: Bool) -> String {
        let kept =
            japanese
            ? "\(keptUntil.month)月\(keptUntil.day)日頃まで保管されます\(cool ? "（クール便）" : "")。"
            : "Kept until about \(keptUntil.month)/\(keptUntil.day)\(cool ? " (cool parcel)" : ""). "
        return kept + ask(japanese: japanese)
    }

    /// Where to ask for a redelivery: the carrier's page, or the office's telephone when the page names one.
    func ask(japanese: Bool) -> String {
        let call = office.flatMap { office in office.telephone.map { (office.name, $0) } }
        if japanese {
            return call.map { "再配達は運送会社のページか、\($0.0)（\($0.1)）へご依頼ください。" }
                ?? "再配達は運送会社のページからご依頼ください。"
        }
        return call.map { "Ask for a redelivery on the carrier's page or from \($0.0) (\($0.1))." }
            ?? "Ask for a redelivery on the carrier's page."
    }
}
