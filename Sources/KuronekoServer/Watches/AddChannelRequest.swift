import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore

/// The body of `POST /v1/channels`, checked field by field: `{"kind", the kind's own fields (see each kind's
/// ``ChannelKind/fields``: "subscription" for web_push, "url" for ntfy, slack, discord and webhook, "address"
/// for email, "access_token" and "to" for line), "numbers"?, "kinds"?, "urgent"?, "lang"?, "quiet_hours"?}`,
/// nothing else.
public struct AddChannelRequest: Sendable {
    static let common = ["kind", "numbers", "kinds", "urgent", "lang", "quiet_hours", "summary_at"]

    public let kind: any ChannelKind
    public let channel: NewChannel
    /// The address the address guard checks (the push endpoint, or the url; none for e-mail, which goes to
    /// the operator's SMTP server, or LINE, whose origin the operator sets).
    public let destinationURL: String?
    /// What is shown once in the answer (a webhook channel's signing secret).
    public let shownOnce: [String: String]

    /// The request of a JSON body, or the one line that says what is wrong with it (the command line's).
    public static func parse(_ body: Data, kinds: ChannelKindRegistry = .standard)
        throws(ChannelRequestError) -> AddChannelRequest
    {
        do {
            return try decode(body, kinds: kinds)
        } catch {
            throw ChannelRequestError(message: error.detail)
        }
    }

    /// - Parameter defaultEvents: what the channel hears when it names no `kinds` (a member's own channel hears
    ///   less than the list's: ``AnnouncementKind/memberKinds``).
    static func decode(
        _ body: Data, kinds registry: ChannelKindRegistry, defaultEvents: [AnnouncementKind] = AnnouncementKind.parcelKinds
    ) throws(RouteProblem) -> AddChannelRequest {
        let fields = common + registry.fieldNames
        guard body.count <= 65_536, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw .bad(
                "the body is not a JSON object such as {\"kind\": \"ntfy\", \"url\": \"https://ntfy.sh/my-topic\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw .bad("unknown field \"\(unknown.prefix(40))\"; the fields are " + fields.joined(separator: ", "))
        }
        guard let name = object["kind"] as? String, let kind = registry.named(name) else {
            throw .bad("kind is missing or not one of " + registry.names.joined(separator: ", "))
        }
        let own = kind.fields.map(\.name)
        if let foreign = object.keys.sorted().first(where: { !common.contains($0) && !own.contains($0) }) {
            throw .bad("\(foreign) is not a field of \(name) channels; they take " + own.joined(separator: " and "))
        }
        var numbers: [String]?
        if let value = object["numbers"], !(value is NSNull) {
            guard let list = value as? [Any], list.count <= ChannelRoutes.maximumNumbers else {
                throw .bad("numbers is not a list of at most \(ChannelRoutes.maximumNumbers) tracking numbers")
            }
            numbers = []
            for item in list {
                guard let text = item as? String else { throw .bad("numbers holds something that is not a string") }
                do {
                    numbers?.append(try TrackingNumber(parsing: text).digits)
                } catch {
                    throw .bad("numbers: \(error)")
                }
            }
        }
        let chosen = try kindList(object["kinds"], field: "kinds", allowEmpty: false) ?? defaultEvents
        // What quiet hours do not hold: the owner's choice, else what is urgent by its nature.
        let urgent = try kindList(object["urgent"], field: "urgent", allowEmpty: true)?.map(\.rawValue)
        let lang = object["lang"] as? String ?? "ja"
        guard ["ja", "en"].contains(lang), object["lang"] == nil || object["lang"] is String else {
            throw .bad("lang is not ja or en")
        }
        var quiet: String?
        if let value = object["quiet_hours"], !(value is NSNull) {
            guard let text = value as? String, QuietHours(text) != nil else {
                throw .bad("quiet_hours is not HH:MM-HH:MM, e.g. 22:00-07:00")
            }
            quiet = text
        }
        var summaryMinute: Int?
        if let value = object["summary_at"], !(value is NSNull) {
            guard let text = value as? String, let minute = MorningSummaryTime.minute(text) else {
                throw .bad("summary_at is not HH:MM, e.g. 07:30")
            }
            guard chosen.contains(.morningSummary) else {
                throw .bad("summary_at is the morning summary's time: add morning_summary to kinds")
            }
            summaryMinute = minute
        }
        let prepared: PreparedChannel
        do {
            prepared = try kind.prepare(object, urgent: urgent)
        } catch {
            throw .bad(error.message)
        }
        var channel = NewChannel(
            kind: name, destination: prepared.destination, numbers: numbers, kinds: chosen, language: lang,
            quietHours: quiet)
        channel.summaryMinute = summaryMinute
        return AddChannelRequest(
            kind: kind,
            channel: channel,
            destinationURL: prepared.guardedURL, shownOnce: prepared.shownOnce)
    }
}

extension AddChannelRequest {
    /// A list of announcement kinds (each once), `nil` when absent or null.
    fileprivate static func kindList(_ value: Any?, field: String, allowEmpty: Bool) throws(RouteProblem)
        -> [AnnouncementKind]?
    {
        guard let value, !(value is NSNull) else { return nil }
        let names = AnnouncementKind.choosable.map(\.rawValue).joined(separator: ", ")
        guard let list = value as? [String], allowEmpty || !list.isEmpty, list.count <= AnnouncementKind.choosable.count else {
            throw .bad("\(field) is not a\(allowEmpty ? "" : " non-empty") list of \(names)")
        }
        var kinds: [AnnouncementKind] = []
        for name in list {
            guard let kind = AnnouncementKind(rawValue: name), AnnouncementKind.choosable.contains(kind) else {
                throw .bad("\(field): \"\(name.prefix(40))\" is not one of \(names)")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}

/// `22:00-07:00`: a span of the day in Japan time, possibly across midnight.
public struct QuietHours: Sendable, Hashable {
    let start: Int
    let end: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "-")
        func minutes(_ part: Substring) -> Int? {
            let pieces = part.split(separator: ":")
            guard pieces.count == 2, pieces[0].count == 2, pieces[1].count == 2, let hour = Int(pieces[0]),
                let minute = Int(pieces[1]), (0...23).contains(hour), (0...59).contains(minute)
            else { return nil }
            return hour * 60 + minute
        }
        guard parts.count == 2, let start = minutes(parts[0]), let end = minutes(parts[1]), start != end else {
            return nil
        }
        self.start = start
        self.end = end
    }

    /// When the quiet span holding `now` ends, or `nil` when `now` is outside it.
    public func end(after now: Date) -> Date? {
        let local = JapanDateTime(now)
        let minute = (local.time?.hour ?? 0) * 60 + (local.time?.minute ?? 0)
        let inside = start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
        guard inside else { return nil }
        let wait = (end - minute + 1_440) % 1_440
        let startOfMinute = now.timeIntervalSince1970 - now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        return Date(timeIntervalSince1970: startOfMinute + Double(wait * 60))
    }
}

/// Why a channel's settings were refused, in one line.
public struct ChannelRequestError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
