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
        router.add("POST", "/v1/channels", declares: RouteChange(needs: .viewer, audit: AuditAction.channelAdded)) { request, _ in await routes.watches.answer(request) { try await routes.add(request) } }
        // What the morning summary would say now, for the request's list (`?lang=ja|en`, Japanese by default).
        router.add("GET", "/v1/morning-summary") { request, _ in
            await routes.watches.answer(request) {
                let lang = request.queryValue("lang") ?? "ja"
                guard let language = AnnouncementLanguage(rawValue: lang) else {
                    throw RouteProblem.bad("lang is ja or en, not \(lang.prefix(20))")
                }
                let now = routes.watches.clock.now
                let summary = try await MorningSummaryPreview.summary(
                    of: WatchRoutes.owner(of: request), store: routes.watches.store, now: now)
                return .jsonData(
                    Self.encode(MorningSummaryPreview.object(summary, day: JapanDateTime(now).dateText, language: language)))
            }
        }
        router.add("GET", "/v1/channels") { request, _ in
            await routes.watches.answer(request) {
                let owner = WatchRoutes.owner(of: request)
                let store = routes.watches.store
                let member = Self.member(of: request)
                // A member sees the list's channels and their own; an admin every member's too.
                let channels = try await store.channels(owner: owner).filter { channel in
                    member == nil || channel.member == nil || channel.member == member?.id || member?.admin == true
                }
                let offer = routes.offer
                let summaries = try await store.morningSummaryMinutes(owner: owner)
                return .jsonData(
                    Self.encode([
                        "channels": channels.map { channel in
                            var object = offer.object(channel)
                            object["summary_at"] = summaries[channel.id].map(MorningSummaryTime.text) ?? NSNull()
                            object["shared"] = channel.member == nil
                            object["mine"] = channel.member != nil && channel.member == member?.id
                            object["device"] = channel.device ?? NSNull()
                            return object
                        }, "available": offer.available,
                        "kinds": offer.described,
                        "default_kinds": Self.defaultEvents(member: member, shared: false).map(\.rawValue),
                    ]))
            }
        }
        router.add("DELETE", "/v1/channels/{id}", declares: RouteChange(needs: .viewer, audit: AuditAction.channelRemoved)) { request, parameters in
            await routes.watches.answer(request) {
                let (id, owner, store) = (try Self.id(parameters), WatchRoutes.owner(of: request), routes.watches.store)
                // A member removes their own channels (an admin any of the list's).
                if let member = Self.member(of: request), !member.admin {
                    let channel = try await store.channels(owner: owner).first { $0.id == id }
                    guard let channel, channel.member == member.id else { throw RouteProblem.notFound("channel \(id)") }
                } else if Self.member(of: request) == nil, !SessionGate.actsAsAdmin(request) {
                    throw Self.notAdmin(keyOnly: true)
                }
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

    /// The list's own channels are its admins': a staff member's or key's attempt, refused with what would do.
    static func notAdmin(keyOnly: Bool) -> RouteProblem {
        RouteProblem(
            status: 403, title: "Forbidden", reason: .viewerOnly,
            detail: keyOnly
                ? "this key was made with the staff role: the list's channels are its admins' (sign in to add your own)"
                : "only an admin makes a channel for the whole list; leave shared out for your own")
    }

    /// What a new channel hears when it names nothing: a member's own channel what needs them, the list's channel
    /// (a key's, or one an admin shares) every parcel's news.
    static func defaultEvents(member: (id: Int64, admin: Bool)?, shared: Bool) -> [AnnouncementKind] {
        member != nil && !shared ? AnnouncementKind.memberKinds : AnnouncementKind.parcelKinds
    }

    /// The signed-in member a request comes from (the session gate's), or `nil` for a key or the open API.
    static func member(of request: HTTPRequest) -> (id: Int64, admin: Bool)? {
        guard let id = request.caller.memberID else { return nil }
        return (id, request.caller.role == .admin)
    }

    private func add(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = WatchRoutes.owner(of: request)
        // A signed-in member's channel is their own (their phone, their quiet hours and events), named by
        // `device`; `"shared": true` makes it the whole list's (an admin's to make).
        var raw = request.body
        var shared = false
        var device: String?
        if var object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            object["shared"] != nil || object["device"] != nil
        {
            if let value = object.removeValue(forKey: "shared") {
                guard let flag = value as? Bool else { throw RouteProblem.bad("shared is not true or false") }
                shared = flag
            }
            if let value = object.removeValue(forKey: "device") {
                guard let text = value as? String, (1...60).contains(text.count),
                    !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else { throw RouteProblem.bad("device is not a name of 1 to 60 characters") }
                device = text
            }
            raw = (try? JSONSerialization.data(withJSONObject: object)) ?? raw
        }
        let member = Self.member(of: request)
        // A member's key has no phone of its own: what it makes is the list's, an admin's key's to make.
        if shared || member == nil, !SessionGate.actsAsAdmin(request) { throw Self.notAdmin(keyOnly: member == nil) }
        let body = try AddChannelRequest.decode(
            raw, kinds: offer.kinds, defaultEvents: Self.defaultEvents(member: member, shared: shared))
        if let missing = offer.unavailable(body.kind) {
            throw RouteProblem.bad(missing, reason: .channelUnavailable)
        }
        if let url = body.destinationURL { try await watches.checkWebhook(url, field: "url") }
        let store = watches.store
        let (channel, now) = (body.channel, Date())
        let added = try await store.addChannel(
            channel, owner: owner, member: shared ? nil : member?.id, device: device, now: now)
        var object = offer.object(added)
        object["summary_at"] =
            added.kinds.contains(.morningSummary)
            ? MorningSummaryTime.text(body.channel.summaryMinute ?? MorningSummaryTime.defaultMinute) : NSNull()
        object["shared"] = added.member == nil
        object["mine"] = added.member != nil
        object["device"] = added.device ?? NSNull()
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
