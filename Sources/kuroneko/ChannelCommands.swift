import ArgumentParser
import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoCrypto

/// `kuroneko channels add|list|remove`: the local owner's notification channels, on the local database.
struct ChannelsCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "channels", usage: "add KIND-AND-FIELDS [NUMBER...] | list | remove ID | summary",
        summary: "where the local watch list's news is sent: "
            + ChannelKindRegistry.standard.typed.map(\.title.english).joined(separator: ", "),
        description: [
            "Adds, lists and removes the notification channels of the local owner (the one kuroneko serve uses "
                + "without API keys). A channel hears every watched parcel, or only the NUMBERs given; --kinds "
                + "chooses among changed, delivered, exception, arriving_soon, stalled, overdue, kept_reminder, "
                + "morning_summary (today's parcels once a morning, at --summary-at, 07:30 by default: out for "
                + "delivery, planned today, kept after a missed delivery with whom to call; heard only when named) and "
                + "page_changed (the operator's news that a carrier's page is no longer understood or the mailbox "
                + "cannot be read, and each read again: heard only when named). kuroneko serve sends them.",
            "Each kind's fields: " + fieldSynopsis(.standard) + " (web_push channels are added by the web app).",
        ],
        examples: [
            ("kuroneko channels add --kind ntfy --url https://ntfy.sh/my-parcels --lang en", "phone pushes by ntfy"),
            ("kuroneko channels summary", "what this morning's summary says (nothing is sent)"),
            (
                "KURONEKO_LINE_ACCESS_TOKEN=… kuroneko channels add --kind line --to broadcast",
                "every friend of your LINE Official Account"
            ),
        ])

    @Option(
        help: .about("the channel's kind", value: "KIND"),
        completion: .list(ChannelKindRegistry.standard.typed.map(\.name)))
    var kind: String?
    // The standard kinds' fields, one option each (ChannelsCommandTests checks they are the registry's).
    @Option(help: fieldHelp("url")) var url: String?
    @Option(help: fieldHelp("address")) var address: String?
    @Option(help: fieldHelp("access_token")) var accessToken: String?
    @Option(help: fieldHelp("to")) var to: String?
    @Option(help: .about("what it hears, comma-separated (default all)", value: "LIST")) var kinds: String?
    @Option(help: .about("the messages' language", value: "LANG")) var lang: Language = .japanese
    @Option(help: .about("hold all but urgent messages in these hours, Japan time", value: "HH:MM-HH:MM"))
    var quietHours: String?
    @Option(help: .about("when the morning summary is sent, Japan time (default 07:30)", value: "HH:MM"))
    var summaryAt: String?
    @Flag(
        help: Setting.allowPrivateChannel.help(
            "accept a URL that leads to a loopback or private address (the server must allow them too)"))
    var allowPrivate = false
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Argument(
        help: .about("add and the numbers it hears, list, remove ID or summary", value: "ACTION"),
        completion: .list(["add", "list", "remove", "summary"]))
    var operands: [String] = []

    var listName: String? { list.list }

    /// The standard kinds' fields as given, by field name.
    var givenFields: [String: String] {
        ["url": url, "address": address, "access_token": accessToken, "to": to].compactMapValues { $0 }
    }

    func run(on terminal: Terminal) async throws {
        // A kind the command line does not know is refused before the watch list is opened.
        let known = ChannelKindRegistry.standard.typed.map(\.name)
        if let kind, !known.contains(kind) {
            throw CommandFailure.usage(
                "channels: --kind \"\(kind.prefix(40))\" is not supported; use "
                    + known.dropLast().joined(separator: ", ") + " or " + (known.last ?? ""))
        }
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        switch operands.first ?? "list" {
        case "add":
            guard let kind else {
                throw CommandFailure.usage(
                    "channels: add needs --kind and the kind's fields: " + Self.fieldSynopsis(.standard)
                        + " (web_push channels are added by the web app)")
            }
            var body = Self.body(
                kind: kind, given: givenFields, environment: terminal.environment, kinds: .standard)
            body["lang"] = lang.rawValue
            if let kinds { body["kinds"] = kinds.split(separator: ",").map(String.init) }
            if let quiet = quietHours { body["quiet_hours"] = quiet }
            if let time = summaryAt { body["summary_at"] = time }
            let numbers = Array(operands.dropFirst())
            if !numbers.isEmpty { body["numbers"] = numbers }
            let request: AddChannelRequest
            do {
                request = try AddChannelRequest.parse(try JSONSerialization.data(withJSONObject: body))
            } catch let error as ChannelRequestError {
                throw CommandFailure.usage("channels: \(error.message)")
            }
            // What the server would refuse at delivery is refused here, in the same words.
            if let url = request.destinationURL,
                let refusal = Self.refusal(
                    of: url, allowPrivate: try reader(terminal).flag(allowPrivate, .allowPrivateChannel))
            {
                throw CommandFailure.usage("channels: \(refusal)")
            }
            let added: ChannelRecord
            do {
                added = try await store.addChannel(request.channel, owner: owner, now: Date())
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("channels: \(error)")
            }
            await session.audit("channel_added", added.kind, owner: owner)
            terminal.print("channel \(added.id): \(added.kind) \(request.kind.shown(destination: added.destination) ?? "")")
            for (name, value) in request.shownOnce.sorted(by: { $0.key < $1.key }) {
                terminal.print("\(name): \(value) (shown once)")
            }
        case "list":
            let summaries = try await store.morningSummaryMinutes(owner: owner)
            for channel in try await store.channels(owner: owner) {
                let shown = ChannelKindRegistry.standard.named(channel.kind)?.shown(destination: channel.destination)
                // The morning summary's time where the channel hears it.
                let summary = summaries[channel.id].map { " at " + MorningSummaryTime.text($0) } ?? ""
                terminal.print(
                    "\(channel.id)  \(channel.kind)  \(shown ?? "-")  "
                        + "\(channel.kinds.map(\.rawValue).joined(separator: ","))\(summary)  \(channel.language)  "
                        + Self.state(of: channel))
            }
        case "summary":
            // What the morning summary would say now: the message as a channel would get it.
            let language = AnnouncementLanguage(rawValue: lang.rawValue) ?? .japanese
            let now = Date()
            let summary = try await MorningSummaryPreview.summary(of: owner, store: store, now: now)
            guard let summary else {
                terminal.print(
                    language == .japanese
                        ? "今日は朝のまとめで知らせる荷物がありません（まとめは送られません）"
                        : "nothing to say this morning (no summary is sent)")
                return
            }
            let message = Announcement(summary: summary, language: language, publicURL: nil)
            terminal.print(message.title + "\n" + message.body)
        case "remove":
            guard operands.count == 2, let id = Int64(operands[1]) else {
                throw CommandFailure.usage("channels: usage: kuroneko channels remove ID")
            }
            guard try await store.removeChannel(id, owner: owner) else {
                throw CommandFailure.usage("channels: there is no channel \(id); see 'kuroneko channels list'")
            }
            await session.audit("channel_removed", String(id), owner: owner)
            terminal.print("removed channel \(id)")
        case let action:
            throw CommandFailure.usage("channels: unknown action '\(action.prefix(40))'; use add, list or remove")
        }
    }

    /// `--kind ntfy --url URL; …`: each kind a person types and its fields' flags.
    static func fieldSynopsis(_ kinds: ChannelKindRegistry) -> String {
        kinds.typed.map { kind in
            (["--kind \(kind.name)"] + kind.fields.map { "\($0.flag) \($0.name.uppercased())" }).joined(separator: " ")
        }.joined(separator: "; ")
    }

    /// The kinds' fields a person types, each once, with the kinds that take it (`url`: ntfy, slack, …).
    static func fields(of kinds: ChannelKindRegistry) -> [(field: ChannelField, kinds: [String])] {
        var fields: [(field: ChannelField, kinds: [String])] = []
        for kind in kinds.typed {
            for field in kind.fields {
                if let index = fields.firstIndex(where: { $0.field.name == field.name }) {
                    fields[index].kinds.append(kind.name)
                } else {
                    fields.append((field, [kind.name]))
                }
            }
        }
        return fields
    }

    /// The body of `POST /v1/channels` for `kind` from its fields' options (else their variables); a list
    /// field's commas make a list.
    static func body(kind name: String, given: [String: String], environment: [String: String], kinds: ChannelKindRegistry)
        -> [String: Any]
    {
        var body: [String: Any] = ["kind": name]
        for field in kinds.named(name)?.fields ?? [] {
            let fromVariable = field.environment.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            guard let text = given[field.name] ?? fromVariable else { continue }
            if field.form == .list {
                let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                body[field.name] = items.count == 1 ? items[0] : items
            } else {
                body[field.name] = text
            }
        }
        return body
    }

    /// A field's option help: the kinds that take it, what it is, its variable.
    static func fieldHelp(_ name: String) -> ArgumentHelp {
        guard let (field, owners) = fields(of: .standard).first(where: { $0.field.name == name }) else {
            return ArgumentHelp("(no standard kind has this field)")
        }
        var text = "\(owners.joined(separator: ", ")): \(field.label.english)"
            + (owners.count == 1 ? field.hint.map { " (\($0.english))" } ?? "" : "")
        if let variable = field.environment { text += " [env \(variable)]" }
        return ArgumentHelp(text, valueName: field.name.uppercased())
    }

    /// Why the server would not send to `url` (its form, or where it leads), or `nil`.
    static func refusal(of url: String, allowPrivate: Bool) -> String? {
        do {
            _ = try WebhookAddress(url).resolve(allowPrivate: allowPrivate)
            return nil
        } catch {
            return error.description
        }
    }

    /// `active`, `failing since …: why`, `ended …: why`; for LINE the month's quota and a digest or hold.
    static func state(of channel: ChannelRecord) -> String {
        if let ended = channel.endedAt {
            return "ended \(JapanDateTime(ended).iso8601): \(channel.endedReason ?? "")"
        }
        let state = ChannelState.decode(channel.state)
        var words = [state.failingSince.map { "failing since \(JapanDateTime($0).iso8601): \(state.problem ?? "")" }
            ?? "active"]
        if let quota = state.quota {
            words.append(
                "LINE this month: \(quota.used) of \(quota.limit.map(String.init) ?? "unlimited") messages"
                    + (quota.friends.map { ", \($0) friends" } ?? ""))
        }
        if state.digestSince != nil { words.append("one digest a day at 20:00 (few messages left)") }
        if let held = state.heldUntil, state.failingSince == nil, held > Date() {
            words.append("held until \(JapanDateTime(held).iso8601): monthly limit reached")
        }
        return words.joined(separator: "; ")
    }
}

/// `kuroneko notify-test ID`: sends a sample announcement to one channel now and says what its service
/// answered.
struct NotifyTestCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "notify-test", usage: "[options] ID", summary: "send a sample message to a channel now",
        description: ["Sends a sample announcement to the channel and says what its service answered."],
        examples: [("kuroneko notify-test 1", "is channel 1 reachable?")])

    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Option(help: ClientFlags.caFileHelp) var caFile: String?
    @OptionGroup var channelSettings: ChannelSettingOptions
    @Flag(help: "let it go to loopback and private addresses (a receiver on this machine)") var allowPrivate = false
    @OptionGroup var smtp: SMTPOptions
    @Argument(help: .about("the channel's id (kuroneko channels list)", value: "ID")) var operands: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let reader = reader(terminal)
        guard operands.count == 1, let id = Int64(operands[0]) else {
            throw CommandFailure.usage("notify-test: usage: kuroneko notify-test ID (see 'kuroneko channels list')")
        }
        let session = try WatchListSession(self, terminal: terminal)
        let (store, owner) = (session.store, try await session.owner())
        guard let channel = try await store.channels(owner: owner).first(where: { $0.id == id }),
            let kind = ChannelKindRegistry.standard.named(channel.kind)
        else { throw CommandFailure.usage("notify-test: there is no channel \(id); see 'kuroneko channels list'") }
        let sample = Shipment(
            trackingNumber: try TrackingNumber(parsing: "3277-5445-9830"),
            status: ShipmentStatus(
                code: .outForDelivery, label: "配達中", labelEnglish: "Out for Delivery", summary: nil, note: nil,
                isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        let announcement = Announcement(
            kind: .changed, shipment: sample, label: channel.language == "en" ? "Test" : "テスト",
            language: channel.language == "en" ? .english : .japanese, publicURL: nil)
        let secret = try await store.setting(
            "vapid_private_key", otherwise: Base64URL.encode(try P256KeyPair.generate().privateKey))
        let vapid = try Base64URL.decode(secret).map {
            VAPID(keys: try P256KeyPair(privateKey: $0), subject: "mailto:kuroneko@localhost")
        }
        let caFile = try reader.certificates(caFile, .caFile)
        let server = ChannelServer(settings: try channelSettings.settings(reader))
        let context = ChannelContext(vapid: vapid, now: Date(), serverSettings: server.settings(for: kind))
        let message: ChannelMessage
        do {
            message = try kind.message(
                for: ChannelAnnouncement(announcement), destination: channel.destination, context: context)
        } catch {
            throw CommandFailure.lookup("notify-test: channel \(id): \(error)")
        }
        let outcome: DeliveryOutcome
        switch message {
        case .mail(let address):
            guard let smtp = try smtp.settings(reader, caFile: caFile) else {
                throw CommandFailure.usage(
                    "notify-test: channel \(id) is an email channel; give --smtp-url and --smtp-from (as serve has)")
            }
            outcome = await CurlMailSender(settings: smtp).send(
                MailMessage(announcement, from: smtp.from, to: address, date: Date()))
        case .http(let request):
            outcome = await CurlDeliverySender(
                allowPrivate: allowPrivate, caFile: caFile
            ).send(request)
        }
        switch kind.verdict(of: outcome, at: Date()) {
        case .delivered: break
        case .failing(let reason), .ended(let reason), .held(_, let reason):
            throw CommandFailure.lookup("notify-test: channel \(id): \(reason)")
        case .retry, .shorten:
            throw CommandFailure.lookup("notify-test: channel \(id): \(outcome.error ?? "not delivered")")
        }
        let answer: String
        if case .mail = message { answer = "SMTP \(outcome.status ?? 0)" } else { answer = "HTTP \(outcome.status ?? 0)" }
        terminal.print("channel \(id): delivered (\(answer))")
    }
}
