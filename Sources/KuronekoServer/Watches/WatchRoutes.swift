import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoWatch
import Synchronization

/// `/v1/watches` and `/v1/calendar.ics`: the watch list of the request's owner (its API key, or the one
/// local owner), over a ``WatchStore``. Another owner's watch is a 404, never a 403.
public struct WatchRoutes: Sendable {
    public let store: any WatchStore
    let service: ShipmentService
    let clock: any TrackingClock
    let allowPrivateWebhooks: Bool

    public init(store: any WatchStore, service: ShipmentService, clock: any TrackingClock, allowPrivateWebhooks: Bool) {
        self.store = store
        self.service = service
        self.clock = clock
        self.allowPrivateWebhooks = allowPrivateWebhooks
    }

    func register(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/watches") { request, _ in await routes.add(request) }
        router.add("GET", "/v1/watches") { request, _ in routes.list(request) }
        router.add("GET", "/v1/watches/{number}") { request, parameters in
            routes.withWatch(request, parameters) { watch in .jsonData(Self.json(watch)) }
        }
        router.add("DELETE", "/v1/watches/{number}") { request, parameters in routes.remove(request, parameters) }
        router.add("GET", "/v1/watches/{number}/changes") { request, parameters in
            routes.withWatch(request, parameters) { watch in
                let changes = (try? routes.store.changes(of: watch.number, owner: watch.owner)) ?? []
                return .jsonData(Self.object(["changes": changes.map(Self.json)]))
            }
        }
        router.add("GET", "/v1/watches/{number}/deliveries") { request, parameters in
            routes.withWatch(request, parameters) { watch in
                let deliveries = (try? routes.store.deliveries(of: watch.number, owner: watch.owner)) ?? []
                return .jsonData(Self.object(["deliveries": deliveries.map(Self.json)]))
            }
        }
        router.add("POST", "/v1/watches/{number}/refresh") { request, parameters in
            await routes.refresh(request, parameters)
        }
        router.add("GET", "/v1/calendar.ics") { request, _ in routes.calendar(request) }
    }

    // MARK: Routes

    private static let fields: Set<String> = ["number", "label", "webhook_url"]
    /// Webhook addresses resolved at once, at most (each on a thread of its own).
    static let resolutionLimit = 32
    private static let resolutions = ConcurrencyLimit(resolutionLimit)

    private func add(_ request: HTTPRequest) async -> HTTPResponse {
        let owner = Self.owner(of: request)
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            return Self.bad(
                "the body is not a JSON object such as {\"number\": \"XXXX-XXXX-XXXX\", \"label\": \"shoes\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            return Self.bad("unknown field \"\(unknown.prefix(40))\"; the fields are number, label and webhook_url")
        }
        guard let input = object["number"] as? String else {
            return Self.bad("number is missing or not a string; expected \"XXXX-XXXX-XXXX\"")
        }
        let number: TrackingNumber
        do {
            number = try TrackingNumber(parsing: input)
        } catch {
            return .invalidNumber(error)
        }
        var label: String?
        if let value = object["label"], !(value is NSNull) {
            guard let text = value as? String else { return Self.bad("label is not a string") }
            do {
                label = try WatchLabel.validated(text)
            } catch {
                return Self.bad(error.description)
            }
        }
        var webhook: (url: String, secret: String)?
        if let value = object["webhook_url"], !(value is NSNull) {
            guard let text = value as? String else { return Self.bad("webhook_url is not a string") }
            do {
                let address = try WebhookAddress(text)
                let allowPrivate = allowPrivateWebhooks
                // Each resolution waits on a thread of its own: at most `resolutionLimit` at once.
                guard Self.resolutions.enter() else {
                    var busy = HTTPResponse.problem(
                        status: 503, title: "Service Unavailable",
                        detail: "too many webhook addresses are being checked at once; try again in a second")
                    busy.headers.append(("Retry-After", "1"))
                    return busy
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
                try resolved.get()
                webhook = (text, Secrets.random(prefix: "whsec_"))
            } catch {
                return Self.bad(error.description)
            }
        }
        let added: AddedWatch
        do {
            added = try store.add(number, label: label, owner: owner, webhook: webhook, now: clock.now)
        } catch let error as WatchStoreError {
            return .problem(status: 409, title: "Conflict", detail: error.description)
        } catch {
            return Self.storeFailure(error)
        }
        if added.created {
            // The first check is queued at refresh priority; the answer does not wait for it.
            let service = self.service
            Task { _ = await service.check(number, priority: .refresh) }
        }
        var response = HTTPResponse.jsonData(
            WatchJSON.encode(added.watch, webhookSecret: added.webhookSecret), status: added.created ? 201 : 200)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    private func list(_ request: HTTPRequest) -> HTTPResponse {
        let owner = Self.owner(of: request)
        var limit = 100
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...500).contains(value) else {
                return Self.bad("limit \"\(text.prefix(20))\" is not a number from 1 to 500")
            }
            limit = value
        }
        var cursor: Int64?
        if let text = request.queryValue("cursor") {
            guard let value = Int64(text), value >= 0 else {
                return Self.bad("cursor \"\(text.prefix(20))\" is not one this server gave; use next_cursor as given")
            }
            cursor = value
        }
        var filter = WatchFilter.all
        if let text = request.queryValue("status") {
            guard let value = WatchFilter(rawValue: text), value != .all else {
                return Self.bad("status \"\(text.prefix(20))\" is not allowed; use active or finished")
            }
            filter = value
        }
        do {
            let page = try store.watches(owner: owner, filter: filter, after: cursor, limit: limit + 1)
            let shown = Array(page.prefix(limit))
            var body = Data(#"{"next_cursor":"#.utf8)
            WatchJSON.appendString(&body, page.count > limit ? String(shown.last?.id ?? 0) : nil)
            body.append(Data(#","watches":["#.utf8))
            for (index, watch) in shown.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(WatchJSON.encode(watch))
            }
            body.append(Data("]}".utf8))
            return .jsonData(body)
        } catch {
            return Self.storeFailure(error)
        }
    }

    private func remove(_ request: HTTPRequest, _ parameters: [String: String]) -> HTTPResponse {
        withWatch(request, parameters) { watch in
            do {
                _ = try store.remove(watch.number, owner: watch.owner)
                return HTTPResponse(status: 204)
            } catch {
                return Self.storeFailure(error)
            }
        }
    }

    private func refresh(_ request: HTTPRequest, _ parameters: [String: String]) async -> HTTPResponse {
        let watch: Watch
        switch lookUp(request, parameters) {
        case .success(let found): watch = found
        case .failure(let box): return box.response
        }
        // A check that could not reach Yamato says why; the watch is unchanged and still readable.
        switch await service.check(watch.number, priority: .refresh) {
        case .fresh: break
        case .stale(_, let error), .failed(let error): return APIResponder.problem(for: error)
        }
        guard let current = try? store.watch(watch.number, owner: watch.owner) else {
            return Self.notFound(watch.number.formatted)
        }
        return .jsonData(Self.json(current))
    }

    private func calendar(_ request: HTTPRequest) -> HTTPResponse {
        let owner = Self.owner(of: request)
        let watches =
            (try? store.watches(owner: owner, filter: .active, after: nil, limit: WatchLimits.watchesPerOwner)) ?? []
        var response = HTTPResponse.content(
            Data(DeliveryCalendar.feed(for: watches, now: clock.now).utf8), type: "text/calendar; charset=utf-8")
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    // MARK: Helpers

    /// The watch the path names, for the request's owner; or the problem that says why there is none.
    private func lookUp(_ request: HTTPRequest, _ parameters: [String: String]) -> Result<Watch, HTTPResponseBox> {
        let number: TrackingNumber
        do {
            number = try TrackingNumber(parsing: parameters["number"] ?? "")
        } catch {
            return .failure(
                HTTPResponseBox(
                    .invalidNumber(error)))
        }
        do {
            guard let watch = try store.watch(number, owner: Self.owner(of: request)) else {
                return .failure(HTTPResponseBox(Self.notFound(number.formatted)))
            }
            return .success(watch)
        } catch {
            return .failure(HTTPResponseBox(Self.storeFailure(error)))
        }
    }

    private func withWatch(
        _ request: HTTPRequest, _ parameters: [String: String], _ body: (Watch) -> HTTPResponse
    ) -> HTTPResponse {
        switch lookUp(request, parameters) {
        case .success(let watch): body(watch)
        case .failure(let box): box.response
        }
    }

    static func owner(of request: HTTPRequest) -> WatchOwner {
        WatchOwner(id: request.principal ?? WatchOwner.local.id)
    }

    private static func bad(_ detail: String) -> HTTPResponse {
        .problem(status: 400, title: "Bad Request", detail: detail)
    }

    private static func notFound(_ number: String) -> HTTPResponse {
        .problem(status: 404, title: "Not Found", detail: "\(number) is not on this watch list")
    }

    private static func storeFailure(_ error: any Error) -> HTTPResponse {
        var response = HTTPResponse.problem(
            status: 503, title: "Service Unavailable", detail: "the watch list could not be read or written: \(error)")
        response.headers.append(("Retry-After", "1"))
        return response
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

/// A response carried as an error (a `Result`'s failure must be an `Error`).
struct HTTPResponseBox: Error {
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
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
    private let count = Mutex(0)

    init(_ limit: Int) {
        self.limit = limit
    }

    func enter() -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}
