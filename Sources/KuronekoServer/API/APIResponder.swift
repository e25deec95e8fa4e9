import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoWebApp

/// `kuroneko serve`: the REST API over ``ShipmentService``.
///
/// Routes are in ``OpenAPIDocument``; errors are RFC 9457 problem documents.
public struct APIResponder: HTTPResponder {
    /// The most numbers in `GET /v1/shipments?numbers=`.
    public static let maxNumbersInQuery = 50
    /// The most numbers in `POST /v1/shipments/query`.
    public static let maxNumbersInBody = 100

    private let service: ShipmentService
    private let clock: any TrackingClock
    private let router: Router
    /// Signed-in browsers' sessions, resolved before routing; `nil` where the server keeps no accounts.
    private let gate: SessionGate?

    /// - Parameters:
    ///   - metrics: the lookups' counters; `httpMetrics`: the requests' (both rendered at `/metrics`).
    /// - Parameters:
    ///   - watches: the watch list's routes, when the server keeps one; `webApp`: the dashboard at `/`.
    ///   - moreMetrics: sets further figures in the registry when `/metrics` is scraped (the poller's, the
    ///     webhooks', the body budget's).
    public init(
        service: ShipmentService, metrics: Metrics, httpMetrics: HTTPMetrics, clock: any TrackingClock,
        watches: WatchRoutes? = nil, webApp: WebApp? = nil, pageWatch: PageWatch? = nil, mailbox: MailboxReader? = nil,
        moreMetrics: (@Sendable (MetricsRegistry) async -> Void)? = nil, gate: SessionGate? = nil,
        services: ServiceStates? = nil
    ) {
        self.gate = gate
        self.service = service
        self.clock = clock
        var router = Router()
        router.add("GET", "/v1/shipments/{number}") { request, parameters in
            guard let refresh = Self.refresh(request) else { return Self.badRefresh(request) }
            let carrier: Carrier?
            switch Self.carrier(request) {
            case .success(let named): carrier = named
            case .failure(let problem): return problem.response
            }
            return await Self.one(
                parameters["number"] ?? "", carrier: carrier, refresh: refresh, service: service, clock: clock)
        }
        router.add("GET", "/v1/shipments") { request, _ in
            guard let list = request.queryValue("numbers") else {
                return RouteProblem.bad(
                    "numbers is missing; expected ?numbers=XXXX-XXXX-XXXX,… (up to \(Self.maxNumbersInQuery))"
                ).response
            }
            guard let refresh = Self.refresh(request) else { return Self.badRefresh(request) }
            let carrier: Carrier?
            switch Self.carrier(request) {
            case .success(let named): carrier = named
            case .failure(let problem): return problem.response
            }
            let inputs = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return await Self.many(
                inputs, carrier: carrier, limit: Self.maxNumbersInQuery, refresh: refresh, service: service)
        }
        router.add("POST", "/v1/shipments/query", declares: RouteChange.lookup) { request, _ in
            guard let body = try? JSONDecoder().decode(QueryBody.self, from: request.body) else {
                return RouteProblem.bad(
                    "the body is not {\"numbers\": [\"XXXX-XXXX-XXXX\", …], \"carrier\": optional} (up to "
                        + "\(Self.maxNumbersInBody))"
                ).response
            }
            var carrier: Carrier?
            if let name = body.carrier {
                guard let named = try? Carrier(named: name) else {
                    return Self.badCarrier(name).response
                }
                carrier = named
            }
            return await Self.many(
                body.numbers, carrier: carrier, limit: Self.maxNumbersInBody, refresh: false, service: service)
        }
        router.add("POST", "/v1/tneko", declares: RouteChange.lookup) { request, _ in
            await TnekoRoute.respond(to: request, service: service)
        }
        router.add("GET", "/healthz") { _, _ in .json(["status": "ok"]) }
        router.add("GET", "/readyz") { _, _ in
            // A background service that ended on its own: the server is stopping (and said why in its log).
            if let ended = services?.ended {
                return RouteProblem(
                    status: 503, title: "Service Unavailable", code: "service_ended",
                    detail: "the background service \(ended.name) \(ended.state.text); the server is stopping"
                ).response
            }
            let circuit = service.circuitState
            var database: String?
            if let store = watches?.store {
                do {
                    try await store.checkReachable()
                    database = "reachable"
                } catch {
                    // The driver's words go to the server's log, not the answer.
                    watches?.failures.report(.api, error, context: ["route": "GET /readyz"])
                    return RouteProblem(
                        status: 503, title: "Service Unavailable", reason: .storeUnavailable,
                        detail: "the watch list's database cannot be reached; cached lookups are still served",
                        retryAfter: 1
                    ).response
                }
            }
            guard circuit == .open else {
                var body: [String: Any] = ["status": "ready", "circuit": circuit.rawValue]
                // Every carrier's circuit: one open is named while the server still serves the others.
                body["circuits"] = Dictionary(
                    uniqueKeysWithValues: service.circuitStates.map { ($0.key.rawValue, $0.value.rawValue) })
                body["database"] = database
                // Which background services run (poller, outbox, key ring, …).
                if let services {
                    body["services"] = Dictionary(
                        services.all.map { ($0.name, $0.state.text) }, uniquingKeysWith: { first, _ in first })
                }
                // A carrier whose page is no longer understood is named; the server still serves the others.
                let degraded = pageWatch?.degraded ?? [:]
                if !degraded.isEmpty {
                    body["degraded"] = degraded.sorted { $0.key.rawValue < $1.key.rawValue }.map { carrier, state in
                        [
                            "carrier": carrier.rawValue, "reason": "page_not_understood", "detail": state.reason,
                            "since": ISO8601DateFormatter().string(from: state.since),
                        ]
                    }
                }
                // A mailbox that cannot be read is named too; the server still serves everything else.
                if let mailbox {
                    let state = mailbox.state
                    var reading: [String: Any] = [
                        "state": state.problem != nil ? "failing" : state.lastRead == nil ? "starting" : "ok"
                    ]
                    reading["problem"] = state.problem
                    reading["last_read"] = state.lastRead.map { ISO8601DateFormatter().string(from: $0) }
                    body["mailbox"] = reading
                }
                return .content(
                    (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8),
                    type: "application/json")
            }
            return RouteProblem(
                status: 503, title: "Service Unavailable", code: "circuit_open",
                detail: "the circuit to Yamato is open after repeated failures; cached answers are still served"
            ).response
        }
        router.add("GET", "/metrics") { _, _ in
            // What is read when scraped is set first; then the registry writes everything it holds.
            let registry = metrics.registry
            httpMetrics.refresh()
            metrics.refresh(upstream: service.upstreamStatistics, cacheEntries: service.cache.count)
            if let pageWatch {
                PageWatch.record(pageWatch.degraded, carriers: service.client.clients.keys, into: registry)
            }
            if let mailbox { MailboxReader.record(mailbox.state, into: registry) }
            await moreMetrics?(registry)
            var response = HTTPResponse.content(
                Data(registry.render()), type: "text/plain; version=0.0.4; charset=utf-8")
            response.headers.append(("Cache-Control", "no-store"))
            return response
        }
        let openAPI = OpenAPIDocument.json(channelKinds: watches?.channels.kinds ?? .standard)
        router.add("GET", "/openapi.json") { _, _ in .content(openAPI, type: "application/json") }
        router.add("GET", "/v1/carriers") { _, _ in .json(CarrierInfo.all) }
        watches?.register(into: &router)
        webApp?.register(into: &router)
        self.router = router
    }

    /// Every route the API answers, as method and pattern, with what it declared (a ``RouteChange``, or nothing).
    public var routes: [(method: String, pattern: String, change: RouteChange?)] {
        router.routes.map { ($0.method, $0.pattern, $0.declaration as? RouteChange) }
    }

    public func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        // The cache-hit path, matched by hand rather than through the router: it runs for most requests.
        // Compared as bytes: String's own prefix test and dropFirst walk Unicode characters.
        let path = request.path.utf8
        guard request.method == "GET" || request.method == "HEAD", path.starts(with: Self.shipmentPrefix.utf8),
            Self.refresh(request) == false, case .success(let carrier) = Self.carrier(request)
        else { return nil }
        let text = Substring(path.dropFirst(Self.shipmentPrefix.utf8.count))
        guard !text.isEmpty, !text.utf8.contains(UInt8(ascii: "/")),
            let number = try? TrackingNumber(parsing: String(text))
        else { return nil }
        let now = clock.now
        guard let entry = service.freshCachedEntry(for: number, carrier: carrier, at: now) else { return nil }
        var response = Self.shipment(entry, cache: "hit", now: now)
        response.route = Self.shipmentPattern
        return response
    }

    private static let shipmentPrefix = "/v1/shipments/"
    private static let shipmentPattern = "/v1/shipments/{number}"

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        // What the route the request reaches declared: the role it needs, its audit entry.
        let change = router.declaration(method: request.method, path: request.path) as? RouteChange
        var member: String?
        if let gate, let refusal = await gate.admit(&request, member: &member) { return refusal }
        // A session's or a member key's role below what the route needs (the caller's context is set only by the
        // server's own layers, never from a client).
        if let change, let role = request.caller.role, !change.needs.allows(role) {
            return RouteChange.refusal(change.needs, role: role)
        }
        let response = await router.respond(to: request)
        await gate?.record(
            request, change: change, actor: SessionGate.actor(of: request, member: member), response: response)
        return response
    }

    /// `refresh` is absent, `0` or `1`; `nil` for anything else.
    private static func refresh(_ request: HTTPRequest) -> Bool? {
        switch request.queryValue("refresh") {
        case nil, "0": false
        case "1": true
        default: nil
        }
    }

    private static func badRefresh(_ request: HTTPRequest) -> HTTPResponse {
        RouteProblem.bad(
            "refresh \"\(request.queryValue("refresh") ?? "")\" is not allowed; use refresh=1 or leave it out"
        ).response
    }

    private struct QueryBody: Decodable {
        let numbers: [String]
        let carrier: String?
    }

    /// `?carrier=`: absent (found from the number), or one of the carriers.
    private static func carrier(_ request: HTTPRequest) -> Result<Carrier?, RouteProblem> {
        guard let name = request.queryValue("carrier") else { return .success(nil) }
        guard let carrier = try? Carrier(named: name) else { return .failure(badCarrier(name)) }
        return .success(carrier)
    }

    private static func badCarrier(_ name: String) -> RouteProblem {
        let shown = String(name.unicodeScalars.prefix(64).map { $0.value < 0x20 ? "?" : Character($0) })
        return RouteProblem.bad("carrier \"\(shown)\" is not a carrier; use \(CarrierRegistry.namesInWords), or leave it out")
    }

    private static func parse(_ input: String, carrier: Carrier?) throws(TrackingNumberError) -> TrackingNumber {
        if let carrier { return try TrackingNumber(parsing: input, for: carrier) }
        return try TrackingNumber(parsing: input)
    }

    private static func one(
        _ input: String, carrier: Carrier?, refresh: Bool, service: ShipmentService, clock: any TrackingClock
    ) async -> HTTPResponse {
        let number: TrackingNumber
        do {
            number = try parse(input, carrier: carrier)
        } catch {
            return .invalidNumber(error)
        }
        switch await service.lookup(number, carrier: carrier, refresh: refresh) {
        case .fresh(let entry, let fromCache):
            return shipment(entry, cache: fromCache ? "hit" : "miss", now: clock.now)
        case .stale(let entry, _):
            return shipment(entry, cache: "stale", now: clock.now)
        case .failed(let error):
            return problem(for: error)
        }
    }

    private static func many(
        _ inputs: [String], carrier: Carrier?, limit: Int, refresh: Bool, service: ShipmentService
    ) async -> HTTPResponse {
        guard !inputs.isEmpty, inputs.count <= limit else {
            return RouteProblem.bad("\(inputs.count) numbers given; expected 1 to \(limit)").response
        }
        let parsed = inputs.map { input in
            Result { () throws(TrackingNumberError) in try parse(input, carrier: carrier) }
        }
        let outcomes = await service.lookup(parsed.map { try? $0.get() }, carrier: carrier, refresh: refresh)
        var shipments: [ShipmentCache.Entry] = []
        var errors: [LookupError] = []
        var upstreamFailures: [ServiceError] = []
        var stale = false
        for (index, input) in inputs.enumerated() {
            if case .failure(let error) = parsed[index] {
                errors.append(LookupError(input: input, code: "invalid_number", detail: error.description))
                continue
            }
            switch outcomes[index] {
            case .fresh(let entry, _)?:
                shipments.append(entry)
            case .stale(let entry, _)?:
                shipments.append(entry)
                stale = true
            case .failed(let error)?:
                upstreamFailures.append(error)
                errors.append(LookupError(input: input, code: "upstream_\(error.status)", detail: error.message))
            case nil:
                continue
            }
        }
        // When Yamato could answer none of the valid numbers, say so with the status that says what to do.
        if shipments.isEmpty, let failure = upstreamFailures.first {
            return problem(for: failure)
        }
        var response = HTTPResponse.content(
            ShipmentList.json(shipments: shipments, errors: errors), type: "application/json")
        response.headers.append(("Cache-Control", "no-cache"))
        if stale { response.headers.append(("X-Cache", "stale")) }
        return response
    }

    /// A shipment with what a cache needs: how long this copy stays fresh, how old it is, its tag.
    private static func shipment(_ entry: ShipmentCache.Entry, cache: String, now: Date) -> HTTPResponse {
        let age = max(0, Int(now.timeIntervalSince(entry.fetchedAt)))
        let fresh = cache == "stale" ? 0 : max(0, Int(entry.expiresAt.timeIntervalSince(now)))
        var headers: [(name: String, value: String)] = []
        // Room for what the middleware adds (request id, Vary, CORS) without growing the array.
        headers.reserveCapacity(10)
        // One append each: an array literal here would be a second array, allocated and freed per request.
        headers.append(("Content-Type", "application/json"))
        headers.append(("X-Cache", cache))
        headers.append(("Cache-Control", "max-age=" + String(fresh)))
        headers.append(("Age", String(age)))
        headers.append(("ETag", entry.etag))
        return HTTPResponse(status: 200, headers: headers, body: entry.json)
    }

    /// 502, 503 (with `Retry-After`) or 504 for a lookup Yamato could not answer.
    static func problem(for error: ServiceError) -> HTTPResponse {
        switch error.kind {
        case .badUpstream:
            return RouteProblem(status: 502, title: "Bad Gateway", code: error.reason, detail: error.message).response
        case .upstreamTimeout:
            return RouteProblem(status: 504, title: "Gateway Timeout", code: error.reason, detail: error.message).response
        case .unavailable(let retryAfter):
            return RouteProblem(
                status: 503, title: "Service Unavailable", code: error.reason, detail: error.message,
                retryAfter: max(1, Int((retryAfter / .seconds(1)).rounded(.up)))
            ).response
        case .cancelled:
            return RouteProblem(status: 503, title: "Service Unavailable", code: nil, detail: error.message).response
        }
    }
}

extension HTTPResponse {
    /// 400 for a tracking number that does not parse, with the parser's one-line reason.
    static func invalidNumber(_ error: TrackingNumberError) -> HTTPResponse {
        RouteProblem.invalidNumber(error).response
    }
}
