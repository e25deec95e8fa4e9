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
    /// The kinds offered and what the server has for them.
    let offer: ChannelOffer

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
                let offer = routes.offer
                return .jsonData(
                    Self.encode([
                        "channels": channels.map { offer.object($0) }, "available": offer.available,
                        "kinds": offer.described,
                    ]))
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
                return RouteProblem(
                    status: 404, title: "Not Found", reason: .channelUnavailable, detail: "this server sends no Web Push"
                ).response
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
        let body = try AddChannelRequest.decode(request.body, kinds: offer.kinds)
        if let missing = offer.unavailable(body.kind) {
            throw RouteProblem.bad(missing, reason: .channelUnavailable)
        }
        if let url = body.destinationURL { try await watches.checkWebhook(url, field: "url") }
        let store = watches.store
        let (channel, now) = (body.channel, Date())
        let added = try await store.addChannel(channel, owner: owner, now: now)
        var object = offer.object(added)
        for (name, value) in body.shownOnce { object[name] = value }
        var response = HTTPResponse.jsonData(Self.encode(object), status: 201)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    static func encode(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}

extension ChannelOffer {
    /// A channel as the API shows it: what it hears and where, never its keys, token or secret; why it is
    /// failing and since when; for LINE the month's quota, the digest and a hold.
    func object(_ channel: ChannelRecord) -> [String: Any] {
        let shown = kinds.named(channel.kind)?.shown(destination: channel.destination)
        let urgent = ChannelDestination.urgent(in: channel.destination)
        let state = ChannelState.decode(channel.state)
        func time(_ date: Date?) -> Any { date.map { JapanDateTime($0).iso8601 } as Any? ?? NSNull() }
        var object: [String: Any] = [
            "id": channel.id, "kind": channel.kind, "numbers": channel.numbers as Any? ?? NSNull(),
            "kinds": channel.kinds.map(\.rawValue), "lang": channel.language,
            "quiet_hours": channel.quietHours as Any? ?? NSNull(), "urgent": urgent as Any? ?? NSNull(),
            "url": shown as Any? ?? NSNull(), "created_at": JapanDateTime(channel.createdAt).iso8601,
            "ended_at": time(channel.endedAt), "ended_reason": channel.endedReason as Any? ?? NSNull(),
            "problem": state.problem as Any? ?? NSNull(), "failing_since": time(state.failingSince),
        ]
        if channel.kind == LineChannel().name {
            object["quota"] =
                state.quota.map { quota -> Any in
                    [
                        "limit": quota.limit as Any? ?? NSNull(), "used": quota.used,
                        "friends": quota.friends as Any? ?? NSNull(), "checked_at": JapanDateTime(quota.checkedAt).iso8601,
                    ]
                } ?? NSNull()
            object["digest"] = state.digestSince != nil
            object["held_until"] = time(state.heldUntil)
        }
        return object
    }
}
