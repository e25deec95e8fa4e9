import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore

/// `kuroneko channels add|list|remove`: the local owner's notification channels, on the local database.
struct ChannelsCommand: ArgumentsCommand {
    static let spec = CommandCatalog.channels
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        switch arguments.operands.first ?? "list" {
        case "add":
            guard let kind = try arguments.choice(.kind) else {
                throw CommandFailure.usage(
                    "channels: add needs --kind and the kind's fields: " + Self.fieldSynopsis(.standard)
                        + " (web_push channels are added by the web app)")
            }
            var body = Self.body(kind: kind, arguments: arguments, kinds: .standard)
            body["lang"] = try arguments.choice(.lang) ?? "ja"
            if let kinds = arguments.text(.kinds) { body["kinds"] = kinds.split(separator: ",").map(String.init) }
            if let quiet = arguments.text(.quietHours) { body["quiet_hours"] = quiet }
            if let time = arguments.text(.summaryAt) { body["summary_at"] = time }
            let numbers = Array(arguments.operands.dropFirst())
            if !numbers.isEmpty { body["numbers"] = numbers }
            let request: AddChannelRequest
            do {
                request = try AddChannelRequest.parse(try JSONSerialization.data(withJSONObject: body))
            } catch let error as ChannelRequestError {
                throw CommandFailure.usage("channels: \(error.message)")
            }
            // What the server would refuse at delivery is refused here, in the same words.
            if let url = request.destinationURL,
                let refusal = Self.refusal(of: url, allowPrivate: try arguments.flagOrVariable(.allowPrivate))
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
            let language = AnnouncementLanguage(rawValue: try arguments.choice(.lang) ?? "ja") ?? .japanese
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
            guard arguments.operands.count == 2, let id = Int64(arguments.operands[1]) else {
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

    /// The body of `POST /v1/channels` for `kind` from its fields' flags (each declared by
    /// ``CommandCatalog/channels(kinds:)`` from the same list); a list field's commas make a list.
    static func body(kind name: String, arguments: ArgumentList, kinds: ChannelKindRegistry) -> [String: Any] {
        var body: [String: Any] = ["kind": name]
        for field in kinds.named(name)?.fields ?? [] {
            guard let text = arguments.text(OptionKey<TextOption>(field.flag)) else { continue }
            if field.form == .list {
                let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                body[field.name] = items.count == 1 ? items[0] : items
            } else {
                body[field.name] = text
            }
        }
        return body
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
struct NotifyTestCommand: ArgumentsCommand {
    static let spec = CommandCatalog.notifyTest
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        guard arguments.operands.count == 1, let id = Int64(arguments.operands[0]) else {
            throw CommandFailure.usage("notify-test: usage: kuroneko notify-test ID (see 'kuroneko channels list')")
        }
        let session = try WatchListSession(arguments, terminal: terminal)
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
        let caFile = try arguments.certificates(.caFile)
        let server = ChannelServer(settings: try ChannelSettingOptions.settings(arguments))
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
            guard let smtp = try SMTPOptions.settings(arguments, caFile: caFile) else {
                throw CommandFailure.usage(
                    "notify-test: channel \(id) is an email channel; give --smtp-url and --smtp-from (as serve has)")
            }
            outcome = await CurlMailSender(settings: smtp).send(
                MailMessage(announcement, from: smtp.from, to: address, date: Date()))
        case .http(let request):
            outcome = await CurlDeliverySender(
                allowPrivate: try arguments.flagOrVariable(.allowPrivate), caFile: caFile
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
