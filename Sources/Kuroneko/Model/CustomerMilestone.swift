import Foundation

/// A point of a parcel's journey a shop may tell its customer about, each at most once per parcel.
public enum CustomerMilestone: String, Sendable, Hashable, Codable, CaseIterable {
    /// Handed to the carrier or on its way (発送).
    case shipped
    case outForDelivery = "out_for_delivery"
    case delivered
    /// Nobody was home: the parcel is kept, and the customer asks for it again.
    case missedDelivery = "missed_delivery"
    /// Something the customer should know: held up, under investigation, going back to the shop.
    case problem

    /// The milestone a shipment stands at; `nil` for a number the carrier does not know yet, an unknown status,
    /// or a parcel held for pickup without a missed delivery (nothing for the customer to hear yet).
    public static func of(_ shipment: Shipment) -> CustomerMilestone? {
        if shipment.returnLeg != nil { return .problem }
        switch shipment.status.code {
        case .infoReceived, .inTransit: return .shipped
        case .outForDelivery: return .outForDelivery
        case .delivered: return .delivered
        case .attemptFailed: return .missedDelivery
        case .availableForPickup: return MissedDelivery(shipment) == nil ? nil : .missedDelivery
        case .exception, .returned: return .problem
        case .notFound, .invalidNumber, .unknown: return nil
        }
    }
}

/// Whether a fresh answer is told to the parcel's recipient, by the rules customers accept from shop trackers
/// (17TRACK's: a notice only when the parcel reaches a new point, none for news over 7 days old, none when the
/// first answer already shows the parcel delivered, or already going back to the shop): pure, so the store and the
/// tests ask the same question.
public enum CustomerNoticePlan {
    /// News older than this is not told (the parcel's latest event, against the time of the answer).
    public static let staleAfter: TimeInterval = 7 * 86_400

    public enum Decision: Sendable, Hashable {
        case send(CustomerMilestone)
        case skip(Skip)
    }

    /// Why nothing is sent.
    public enum Skip: String, Sendable, Hashable {
        /// The answer stands at no milestone (not registered yet, an unknown status).
        case noMilestone = "no_milestone"
        /// The shop did not choose this milestone.
        case notChosen = "not_chosen"
        /// The first answer for this parcel already shows it finished: the customer has it.
        case finishedWhenAdded = "finished_when_added"
        /// The first answer for this parcel already shows it going back to the shop (or back): the shop knows,
        /// and "your parcel is coming back to us" would be news to nobody but a customer it was never meant for.
        case returningWhenAdded = "returning_when_added"
        /// The latest event is more than ``staleAfter`` old.
        case stale
    }

    /// - Parameters:
    ///   - firstAnswer: no answer was recorded for the parcel before this one.
    ///   - now: when the answer was fetched.
    public static func decide(
        _ shipment: Shipment, firstAnswer: Bool, chosen: Set<CustomerMilestone>, now: Date
    ) -> Decision {
        guard let milestone = CustomerMilestone.of(shipment) else { return .skip(.noMilestone) }
        if firstAnswer, shipment.returnLeg != nil || shipment.status.code == .returned {
            return .skip(.returningWhenAdded)
        }
        if firstAnswer, shipment.status.isTerminal { return .skip(.finishedWhenAdded) }
        if let latest = shipment.events.compactMap({ $0.at?.instant }).max(), latest < now - staleAfter {
            return .skip(.stale)
        }
        guard chosen.contains(milestone) else { return .skip(.notChosen) }
        return .send(milestone)
    }
}
