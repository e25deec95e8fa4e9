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
        switch arguments.operands.first ?? "list" {
        case "add":
            guard let kind = try arguments.choice("--kind"), kind != "web_push" else {
                throw CommandFailure.usage(
                    "channels: add needs --kind ntfy|slack|discord|webhook and --url URL, or --kind email and "
                        + "--address ADDRESS (web_push channels are added by the web app)")
            }
            var body: [String: Any] = ["kind": kind, "lang": try arguments.choice("--lang") ?? "ja"]
            body["url"] = arguments.text("--url")
            body["address"] = arguments.text("--address")
            if let kinds = arguments.text("--kinds") { body["kinds"] = kinds.split(separator: ",").map(String.init) }
            if let quiet = arguments.text("--quiet-hours") { body["quiet_hours"] = quiet }
            let numbers = Array(arguments.operands.dropFirst())
            if !numbers.isEmpty { body["numbers"] = numbers }
            let request: AddChannelRequest
            do {
                request = try AddChannelRequest.parse(try JSONSerialization.data(withJSONObject: body))
            } catch let error as ChannelRequestError {
                throw CommandFailure.usage("channels: \(error.message)")
            }
            let added: ChannelRecord
            do {
                added = try await store.addChannel(request.channel, owner: .local, now: Date())
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("channels: \(error)")
            }
            terminal.print(
                "channel \(added.id): \(added.kind) \(request.destinationURL ?? arguments.text("--address") ?? "")")
            if let secret = request.secret { terminal.print("signing secret: \(secret) (shown once)") }
        case "list":
            for channel in try await store.channels(owner: .local) {
                let settings = try? JSONDecoder().decode(ChannelSettings.self, from: channel.destination)
                let state =
                    channel.endedAt.map { "ended \(JapanDateTime($0).iso8601): \(channel.endedReason ?? "")" }
                    ?? "active"
                terminal.print(
                    "\(channel.id)  \(channel.kind)  \(settings?.shownURL ?? "-")  "
                        + "\(channel.kinds.map(\.rawValue).joined(separator: ","))  \(channel.language)  \(state)")
            }
        case "remove":
            guard arguments.operands.count == 2, let id = Int64(arguments.operands[1]) else {
                throw CommandFailure.usage("channels: usage: kuroneko channels remove ID")
            }
            guard try await store.removeChannel(id, owner: .local) else {
                throw CommandFailure.usage("channels: there is no channel \(id); see 'kuroneko channels list'")
            }
            terminal.print("removed channel \(id)")
        case let action:
            throw CommandFailure.usage("channels: unknown action '\(action.prefix(40))'; use add, list or remove")
        }
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
        let store = try WatchListSession(arguments, terminal: terminal).store
        guard let channel = try await store.channels(owner: .local).first(where: { $0.id == id }),
            let destination = try? JSONDecoder().decode(ChannelSettings.self, from: channel.destination)
                .destination(kind: channel.kind)
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
        let caFile = try arguments.certificates("--ca-file")
        let outcome: DeliveryOutcome
        if case .email(let address) = destination {
            guard let smtp = try SMTPOptions.settings(arguments, caFile: caFile) else {
                throw CommandFailure.usage(
                    "notify-test: channel \(id) is an email channel; give --smtp-url and --smtp-from (as serve has)")
            }
            outcome = await CurlMailSender(settings: smtp).send(
                MailMessage(announcement, from: smtp.from, to: address, date: Date()))
        } else {
            let request = try ChannelRequests.request(for: destination, announcement, vapid: vapid, now: Date())
            outcome = await CurlDeliverySender(
                allowPrivate: try arguments.flagOrVariable("--allow-private"), caFile: caFile
            ).send(request)
        }
        guard outcome.delivered else {
            throw CommandFailure.lookup("notify-test: channel \(id): \(outcome.error ?? "not delivered")")
        }
        let answer =
            if case .email = destination { "SMTP \(outcome.status ?? 0)" } else { "HTTP \(outcome.status ?? 0)" }
        terminal.print("channel \(id): delivered (\(answer))")
    }
}
