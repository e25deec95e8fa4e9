import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore

/// `/v1/channels` and `/v1/push/vapid-key`: where the request's owner is told of its parcels. Another
/// owner's channel is a 404. A channel's destination (a push subscription's keys, a webhook's secret) is
/// never shown again after it is added.
struct ChannelRoutes: Sendable {
    let watches: WatchRoutes
    let vapid: VAPID?
    /// Whether this server sends e-mail (it was given `--smtp-url` and `--smtp-from`).
    let sendsMail: Bool

    /// The most numbers a channel may be limited to.
    static let maximumNumbers = 1_000

    func register(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/channels") { request, _ in await routes.watches.answer(request) { try await routes.add(request) } }
        router.add("GET", "/v1/channels") { request, _ in
            await routes.watches.answer(request) {
                let owner = WatchRoutes.owner(of: request)
                let store = routes.watches.store
                let channels = try await store.channels(owner: owner)
                return .jsonData(Self.encode(["channels": channels.map { Self.object($0) }]))
            }
        }
        router.add("DELETE", "/v1/channels/{id}") { request, parameters in
            await routes.watches.answer(request) {
                let (id, owner, store) = (try Self.id(parameters), WatchRoutes.owner(of: request), routes.watches.store)
                guard try await store.removeChannel(id, owner: owner) else {
                    throw RouteProblem.notFound("channel \(id)")
                }
                return HTTPResponse(status: 204)
            }
        }
        router.add("GET", "/v1/channels/{id}/deliveries") { request, parameters in
            await routes.watches.answer(request) {
                let (id, owner, store) = (try Self.id(parameters), WatchRoutes.owner(of: request), routes.watches.store)
                guard
                    let records = try await store.channelDeliveries(of: id, owner: owner)
                else { throw RouteProblem.notFound("channel \(id)") }
                let items: [[String: Any]] = records.map { record in
                    [
                        "at": JapanDateTime(record.at).iso8601, "state": record.state,
                        "status": record.status as Any? ?? NSNull(), "error": record.error as Any? ?? NSNull(),
                        "duration_ms": record.durationMilliseconds,
                    ]
                }
                return .jsonData(Self.encode(["deliveries": items]))
            }
        }
        router.add("GET", "/v1/push/vapid-key") { _, _ in
            guard let vapid = routes.vapid else {
                return .problem(status: 404, title: "Not Found", detail: "this server sends no Web Push")
            }
            return .jsonData(Self.encode(["public_key": vapid.publicKey]))
        }
    }

    private static func id(_ parameters: [String: String]) throws(RouteProblem) -> Int64 {
        guard let text = parameters["id"], let id = Int64(text), id > 0 else {
            throw .notFound("channel \((parameters["id"] ?? "").prefix(20))")
        }
        return id
    }

    private func add(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = WatchRoutes.owner(of: request)
        let body = try AddChannelRequest.decode(request.body)
        if let url = body.destinationURL { try await watches.checkWebhook(url) }
        if body.kind == "web_push", vapid == nil {
            throw RouteProblem.bad("this server sends no Web Push (it has no VAPID key)")
        }
        if body.kind == "email", !sendsMail {
            throw RouteProblem.bad(
                "this server sends no e-mail: its operator has not given it --smtp-url and --smtp-from")
        }
        let store = watches.store
        let (channel, now) = (body.channel, Date())
        let added = try await store.addChannel(channel, owner: owner, now: now)
        var object = Self.object(added)
        if let secret = body.secret { object["secret"] = secret }
        var response = HTTPResponse.jsonData(Self.encode(object), status: 201)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// A channel as the API shows it: what it hears and where, never its keys or secret.
    static func object(_ channel: ChannelRecord) -> [String: Any] {
        let destination = (try? JSONDecoder().decode(ChannelSettings.self, from: channel.destination))
        return [
            "id": channel.id, "kind": channel.kind, "numbers": channel.numbers as Any? ?? NSNull(),
            "kinds": channel.kinds.map(\.rawValue), "lang": channel.language,
            "quiet_hours": channel.quietHours as Any? ?? NSNull(), "urgent": destination?.urgent as Any? ?? NSNull(),
            "url": destination?.shownURL as Any? ?? NSNull(), "created_at": JapanDateTime(channel.createdAt).iso8601,
            "ended_at": channel.endedAt.map { JapanDateTime($0).iso8601 } as Any? ?? NSNull(),
            "ended_reason": channel.endedReason as Any? ?? NSNull(),
        ]
    }

    static func encode(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}

/// How a channel's destination is stored (the `destination` JSON of ``ChannelRecord``).
public struct ChannelSettings: Codable, Sendable {
    var url: String
    var p256dh: String?
    var auth: String?
    var secret: String?
    /// The kinds the owner marked urgent (sent through quiet hours); `nil`: what is urgent by its nature
    /// (exceptions, arriving soon, out for delivery).
    public var urgent: [String]?

    /// The address shown back: a push endpoint only by its origin (its path is the subscription's secret).
    public var shownURL: String {
        guard p256dh != nil, let url = URL(string: url) else { return url }
        return VAPID.origin(of: url)
    }

    public func destination(kind: String) -> ChannelDestination? {
        if kind == "email" { return (try? MailAddress(parsing: url)).map { .email(address: $0) } }
        guard let address = URL(string: url) else { return nil }
        switch kind {
        case "web_push":
            guard let p256dh, let auth, let keys = try? PushSubscriptionKeys(p256dh: p256dh, auth: auth) else {
                return nil
            }
            return .webPush(endpoint: address, keys: keys)
        case "ntfy": return .ntfy(topic: address)
        case "slack": return .slack(webhook: address)
        case "discord": return .discord(webhook: address)
        case "webhook": return secret.map { .webhook(url: address, secret: $0) }
        default: return nil
        }
    }
}
