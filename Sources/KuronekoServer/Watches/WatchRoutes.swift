import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import Synchronization
import KuronekoCrypto

/// `/v1/watches` and `/v1/calendar.ics`: the watch list of the request's owner (its API key, or the one
/// local owner), over a ``WatchStore``. Another owner's watch is a 404, never a 403.
public struct WatchRoutes: Sendable {
    public let store: any ListStore
    let service: ShipmentService
    let clock: any TrackingClock
    let allowPrivateWebhooks: Bool
    /// The server's Web Push identity, for `/v1/channels` and `/v1/push/vapid-key`.
    let vapid: VAPID?
    /// The channel kinds offered, and what this server has that they may need.
    let channels: ChannelOffer
    /// CSV exports being written (at most ``WatchListExport/concurrentExports``).
    let exports = ConcurrencyLimit(WatchListExport.concurrentExports)
    /// Sheets being imported (at most ``concurrentImports``).
    let imports = ConcurrencyLimit(WatchRoutes.concurrentImports, perKey: 1)
    /// Answers of `GET /v1/watches/changes` waiting for a change (at most ``changesWaitingLimit``).
    let changesWaiting = ConcurrencyLimit(WatchRoutes.changesWaitingLimit, perKey: WatchRoutes.changesWaitingPerCaller)
    /// Where store failures met by a request are logged and counted.
    let failures: StoreFailures
    /// Where uploaded mail is read (off the cooperative pool, a few at a time).
    let mailLanes: MailReadingLanes
    /// What customer notices are sent with; `nil` on a server without SMTP and a public URL.
    let notices: CustomerNoticeMail?
    /// Whether session cookies are `Secure` (an https server or public URL).
    let secureCookies: Bool
    /// What passkey challenges are signed with, and the site passkeys belong to (`--public-url`, else the Host).
    let passkeyKey: String
    /// Each list's delivered parcels, for the estimates of those on their way.
    let histories = TransitHistories()
    let publicURL: URL?

    public init(
        store: any ListStore, service: ShipmentService, clock: any TrackingClock, allowPrivateWebhooks: Bool,
        vapid: VAPID? = nil, channels: ChannelOffer = ChannelOffer(), failures: StoreFailures = StoreFailures(),
        mailLanes: MailReadingLanes = MailReadingLanes(), notices: CustomerNoticeMail? = nil,
        secureCookies: Bool = true, passkeyKey: String = Secrets.random(bytes: 32), publicURL: URL? = nil
    ) {
        self.secureCookies = secureCookies
        self.passkeyKey = passkeyKey
        self.publicURL = publicURL
        self.notices = notices
        self.failures = failures
        self.mailLanes = mailLanes
        self.vapid = vapid
        self.channels = channels
        self.store = store
        self.service = service
        self.clock = clock
        self.allowPrivateWebhooks = allowPrivateWebhooks
    }

    func register(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/watches", declares: RouteChange(needs: .staff, audit: AuditAction.added)) { request, _ in await routes.answer(request) { try await routes.add(request) } }
        router.add("GET", "/v1/watches", declares: RouteChange(needs: .viewer, audit: AuditAction.exported)) { request, _ in await routes.answer(request) { try await routes.list(request) } }
        registerBulk(into: &router)
        registerMail(into: &router)
        registerImport(into: &router)
        registerEstimate(into: &router)
        router.add("GET", "/v1/watches/summary") { request, _ in
            await routes.answer(request) { try await routes.summary(request) }
        }
        router.add("GET", "/v1/watches/changes") { request, _ in
            await routes.answer(request) { try await routes.changes(request) }
        }
        router.add("GET", "/v1/watches/{number}") { request, parameters in
            await routes.answer(request) { .jsonData(Self.json(try await routes.lookUp(request, parameters))) }
        }
        router.add("DELETE", "/v1/watches/{number}", declares: RouteChange(needs: .staff, audit: AuditAction.removed)) { request, parameters in
            await routes.answer(request) {
                let watch = try await routes.lookUp(request, parameters)
                let store = routes.store
                _ = try await store.remove(watch.number, owner: watch.owner)
                return HTTPResponse(status: 204)
            }
        }
        router.add("GET", "/v1/watches/{number}/changes") { request, parameters in
            await routes.answer(request) {
                let watch = try await routes.lookUp(request, parameters)
                let store = routes.store
                let changes =
                    try await store.changes(of: watch.number, owner: watch.owner)
                    ?? []
                return .jsonData(Self.object(["changes": changes.map(Self.json)]))
            }
        }
        router.add("GET", "/v1/watches/{number}/deliveries") { request, parameters in
            await routes.answer(request) {
                let watch = try await routes.lookUp(request, parameters)
                let store = routes.store
                let deliveries =
                    try await store.deliveries(of: watch.number, owner: watch.owner)
                    ?? []
                return .jsonData(Self.object(["deliveries": deliveries.map(Self.json)]))
            }
        }
        router.add("POST", "/v1/watches/{number}/refresh", declares: RouteChange(needs: .staff, audit: .none("a refresh asks the carrier again; the list is not changed by hand"))) { request, parameters in
            await routes.answer(request) { try await routes.refresh(request, parameters) }
        }
        router.add("GET", "/v1/calendar.ics") { request, _ in await routes.answer(request) { try await routes.calendar(request) } }
        ChannelRoutes(watches: routes, vapid: vapid, offer: channels).register(into: &router)
        NoticeRoutes(watches: routes, mail: notices).register(into: &router)
        AccountRoutes(
            watches: routes, accounts: store, secureCookies: secureCookies, challengeKey: passkeyKey,
            publicURL: publicURL
        ).register(into: &router)
    }

    /// Runs a route; any error it throws is answered as the problem it is (``RouteProblem``): a thrown
    /// ``RouteProblem`` as itself, a ``WatchStoreError`` (a conflict the store found) a 409, a failure of the
    /// store a 503 and anything else a 500. Those two are logged (the store's also counted) with the request's
    /// id, which is all the client is told of them. No failure is an empty 200.
    func answer(_ request: HTTPRequest, _ route: () async throws -> HTTPResponse) async -> HTTPResponse {
        do {
            return try await route()
        } catch {
            let context: Logger.Metadata = ["request": "\(request.id ?? "-")", "route": "\(request.method) \(request.path)"]
            if RouteProblem.isStoreFailure(error) {
                failures.report(.api, error, context: context)
            } else if RouteProblem.isUnexpected(error) {
                failures.unexpected(error, context: context)
            }
            return RouteProblem(error, requestID: request.id).response
        }
    }

    // MARK: Routes

    /// Webhook addresses resolved at once, at most (each on a thread of its own).
    static let resolutionLimit = 32
    private static let resolutions = ConcurrencyLimit(resolutionLimit)

    private func add(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        if request.body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            return try await addMany(request.body, owner: owner)
        }
        return try await addOne(try AddWatchRequest.decode(request.body), owner: owner)
    }

    func addOne(_ body: AddWatchRequest, owner: WatchOwner) async throws -> HTTPResponse {
        let number: TrackingNumber
        do {
            if let carrier = body.carrier {
                number = try TrackingNumber(parsing: body.number, for: carrier)
            } else {
                number = try TrackingNumber(parsing: body.number)
            }
        } catch {
            throw RouteProblem.invalidNumber(error)
        }
        var label: String?
        if let text = body.label {
            do {
                label = try WatchLabel.validated(text)
            } catch {
                throw RouteProblem.bad(error.description, reason: .invalidLabel)
            }
        }
        var webhook: (url: String, secret: String)?
        if let text = body.webhookURL {
            try await checkWebhook(text)
            webhook = (text, Secrets.random(prefix: "whsec_"))
        }
        let (store, now, chosenLabel, subscription, carrier) = (self.store, clock.now, label, webhook, body.carrier)
        let added = try await store.add(
            number, carrier: carrier, label: chosenLabel, record: body.record, owner: owner, webhook: subscription,
            now: now)
        if added.created {
            // The first check is queued at refresh priority; the answer does not wait for it.
            let service = self.service
            Task { _ = await service.check(number, carrier: carrier, priority: .refresh) }
        }
        var response = HTTPResponse.jsonData(
            WatchJSON.encode(added.watch, webhookSecret: added.webhookSecret), status: added.created ? 201 : 200)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The address's form, then what it resolves to: each resolution waits on a thread of its own, at most
    /// ``resolutionLimit`` at once (more are answered 503).
    /// - Parameter field: the request's name for the address, in the refusal (`url` for a channel).
    func checkWebhook(_ text: String, field: String = "webhook_url") async throws(RouteProblem) {
        let address: WebhookAddress
        do {
            address = try WebhookAddress(text)
        } catch {
            throw .bad(error.description(naming: field), reason: .invalidWebhook)
        }
        let allowPrivate = allowPrivateWebhooks
        guard Self.resolutions.enter() else {
            throw .busy("too many webhook addresses are being checked at once; try again in a second")
        }
        defer { Self.resolutions.leave() }
        let resolved: Result<Void, WebhookAddressError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result { () throws(WebhookAddressError) in
                        _ = try address.resolve(allowPrivate: allowPrivate)
                    })
            }
        }
        do {
            try resolved.get()
        } catch {
            if case .privateAddress = error { throw .bad(error.description(naming: field), reason: .privateAddress) }
            throw .bad(error.description(naming: field), reason: .invalidWebhook)
        }
    }

    private func refresh(_ request: HTTPRequest, _ parameters: [String: String]) async throws -> HTTPResponse {
        let watch = try await lookUp(request, parameters)
        // A check that could not reach Yamato says why; the watch is unchanged and still readable.
        switch await service.check(watch.number, carrier: watch.carrier, priority: .refresh) {
        case .fresh: break
        case .stale(_, let error), .failed(let error): return APIResponder.problem(for: error)
        }
        let store = self.store
        guard let current = try await store.watch(watch.number, owner: watch.owner)
        else {
            throw RouteProblem.notFound(watch.number.formatted)
        }
        return .jsonData(Self.json(current))
    }

    private func calendar(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        // Only active watches with a day on the calendar, read a page at a time.
        var query = WatchQuery()
        query.state = .active
        query.dated = true
        var watches: [Watch] = []
        var cursor: Int64?
        let now = clock.now
        while true {
            let page = try await store.watches(owner: owner, matching: query, after: cursor, limit: 1_000, now: now)
            watches += page
            guard page.count == 1_000, let last = page.last else { break }
            cursor = last.id
        }
        var response = HTTPResponse.content(
            Data(DeliveryCalendar.feed(for: watches, now: clock.now).utf8), type: "text/calendar; charset=utf-8")
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    // MARK: Helpers

    /// The watch the path names, for the request's owner; or the problem that says why there is none.
    func lookUp(_ request: HTTPRequest, _ parameters: [String: String]) async throws -> Watch {
        let number: TrackingNumber
        do {
            number = try TrackingNumber(parsing: parameters["number"] ?? "")
        } catch {
            throw RouteProblem.invalidNumber(error)
        }
        let (store, owner) = (self.store, Self.owner(of: request))
        guard let watch = try await store.watch(number, owner: owner) else {
            throw RouteProblem.notFound(number.formatted)
        }
        return watch
    }

    static func owner(of request: HTTPRequest) -> WatchOwner {
        WatchOwner(id: request.principal ?? WatchOwner.local.id)
    }

    private static func date(_ date: Date?) -> Any {
        date.map { JapanDateTime($0).iso8601 } ?? NSNull()
    }

    static func json(_ watch: Watch) -> Data { WatchJSON.encode(watch) }

    static func json(_ change: StatusChange) -> [String: Any] {
        [
            "id": change.id, "created_at": date(change.createdAt),
            "previous": (try? JSONSerialization.jsonObject(with: change.previous)) ?? NSNull(),
            "shipment": (try? JSONSerialization.jsonObject(with: change.shipment)) ?? NSNull(),
        ]
    }

    static func json(_ delivery: DeliveryRecord) -> [String: Any] {
        [
            "change_id": delivery.changeID, "state": delivery.state, "at": date(delivery.at),
            "status": delivery.status ?? NSNull(), "error": delivery.error ?? NSNull(),
            "duration_ms": delivery.durationMilliseconds,
        ]
    }

    static func object(_ value: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }
}

extension HTTPResponse {
    /// JSON already encoded.
    static func jsonData(_ body: Data, status: Int = 200) -> HTTPResponse {
        .content(body, type: "application/json", status: status)
    }
}

/// A count of work under way with a ceiling: `enter` refuses instead of waiting.
final class ConcurrencyLimit: Sendable {
    private let limit: Int
    private let perKey: Int
    /// How many are in, in all and by key (a key leaves the map when its last one leaves: at most `limit` keys).
    private let state = Mutex<(count: Int, byKey: [String: Int])>((0, [:]))

    /// - Parameter perKey: the most one key (a caller) may hold of `limit`; all of it by default.
    init(_ limit: Int, perKey: Int? = nil) {
        self.limit = limit
        self.perKey = perKey ?? limit
    }

    func enter(key: String? = nil) -> Bool {
        state.withLock { state in
            guard state.count < limit else { return false }
            if let key {
                guard state.byKey[key, default: 0] < perKey else { return false }
                state.byKey[key, default: 0] += 1
            }
            state.count += 1
            return true
        }
    }

    func leave(key: String? = nil) {
        state.withLock { state in
            state.count -= 1
            if let key, let held = state.byKey[key] { state.byKey[key] = held > 1 ? held - 1 : nil }
        }
    }
}
