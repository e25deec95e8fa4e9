import Foundation
import Kuroneko
import KuronekoHTTP

/// `kuroneko simulate`: a stand-in for Yamato's `/cgi-bin/tneko`, with fault injection and an admin endpoint.
///
/// - `POST /cgi-bin/tneko` with `number01`…`number10`: the result page, in today's layout.
/// - `GET /admin/stats`: what was received: POSTs, numbers, how many numbers each POST carried, the most
///   POSTs answered at once, and the shortest time between two POSTs' arrivals.
/// - `GET` / `PUT /admin/faults`: the fault settings (``SimulatorFaults``); PUT changes the keys it names.
/// - `GET` / `PUT /admin/clock`: `{"now": ISO 8601, "speed": simulated seconds per second}`.
public struct SimulatorResponder: HTTPResponder {
    private let clock: SimulatorClock
    private let epoch: Date
    private let state: SimulatorState
    private let router: Router

    /// - Parameters:
    ///   - epoch: parcels are handed in from 36 hours before to 12 hours after it (default: the clock's start).
    ///   - received: told of every POST as it arrives (before any fault delays it), with its POST count so far
    ///     and its number count; `kuroneko simulate` logs it.
    public init(
        clock: SimulatorClock, faults: SimulatorFaults = SimulatorFaults(), epoch: Date? = nil,
        received: (@Sendable (_ post: Int, _ numbers: Int) -> Void)? = nil
    ) {
        self.clock = clock
        let epoch = epoch ?? clock.now
        self.epoch = epoch
        let state = SimulatorState(faults: faults)
        self.state = state
        var router = Router()
        router.add("POST", "/cgi-bin/tneko") { request, _ in
            let response = await Self.answerForm(request, clock: clock, epoch: epoch, state: state, received: received)
            await state.finishPost()
            return response
        }
        router.add("GET", "/p/web/okurijosearch.do") { request, _ in
            await state.count(.sagawa, numbers: 1)
            let number = request.queryValue("okurijoNo") ?? ""
            let page = SagawaSimulatedPage.results(
                for: [number], now: clock.now, epoch: epoch, state: await state.issueSagawaState())
            return .content(await state.changed(page, .sagawa), type: "text/html; charset=Windows-31J")
        }
        router.add("GET", "/p/sagawa/web/okurijoinput.jsp") { _, _ in
            await state.count(.sagawa, numbers: 0)
            return .content(
                SagawaSimulatedPage.form(state: await state.issueSagawaState()), type: "text/html; charset=Windows-31J")
        }
        router.add("POST", "/p/sagawa/web/okurijoinput.jsp") { request, _ in
            let fields = FormEncoding.decode(String(decoding: request.body, as: UTF8.self))
            func field(_ name: String) -> String { fields.first { $0.name == name }?.value ?? "" }
            let numbers = (1...10).map { field("main:no\($0)").trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            await state.count(.sagawa, numbers: numbers.count)
            let fresh = await state.issueSagawaState()
            // State this simulator did not issue (or issued too long ago) is refused: the empty form again.
            guard await state.acceptsSagawaState(tree: field("jsf_tree_64"), state: field("jsf_state_64")) else {
                return .content(SagawaSimulatedPage.form(state: fresh), type: "text/html; charset=Windows-31J")
            }
            let page = SagawaSimulatedPage.results(for: numbers, now: clock.now, epoch: epoch, state: fresh)
            return .content(await state.changed(page, .sagawa), type: "text/html; charset=Windows-31J")
        }
        router.add("GET", "/services/srv/search/direct") { request, _ in
            await state.count(.japanPost, numbers: 1)
            let page = JapanPostSimulatedPage.detail(
                for: request.queryValue("reqCodeNo1") ?? "", now: clock.now, epoch: epoch)
            return .content(await state.changed(page, .japanPost), type: "text/html; charset=UTF-8")
        }
        router.add("GET", "/services/srv/search/") { request, _ in
            let numbers = (1...10).compactMap { request.queryValue("requestNo\($0)") }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            await state.count(.japanPost, numbers: numbers.count)
            let page = JapanPostSimulatedPage.search(for: numbers, now: clock.now, epoch: epoch)
            return .content(await state.changed(page, .japanPost), type: "text/html; charset=UTF-8")
        }
        let context = SimulatedCarrierContext(clock: clock, epoch: epoch, state: state)
        for simulated in SimulatedCarriers.registered { simulated.addRoutes(to: &router, context: context) }
        router.add("GET", "/admin/stats") { _, _ in .json(await state.statistics) }
        router.add("GET", "/admin/faults") { _, _ in .json(await state.faults) }
        router.add("PUT", "/admin/faults") { request, _ in await Self.updateFaults(request, state: state) }
        router.add("GET", "/admin/clock") { _, _ in .json(ClockSetting(clock: clock)) }
        router.add("PUT", "/admin/clock") { request, _ in Self.updateClock(request, clock: clock) }
        self.router = router
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await router.respond(to: request)
    }

    private static func answerForm(
        _ request: HTTPRequest, clock: SimulatorClock, epoch: Date, state: SimulatorState,
        received: (@Sendable (Int, Int) -> Void)?
    ) async -> HTTPResponse {
        let fields = FormEncoding.decode(String(decoding: request.body, as: UTF8.self))
        let asked = (1...10).compactMap { position -> String? in
            let name = "number" + (position < 10 ? "0" : "") + String(position)
            let value = fields.first { $0.name == name }?.value.trimmingCharacters(in: .whitespaces) ?? ""
            return value.isEmpty ? nil : value
        }
        let (faults, post) = await state.record(post: asked.count)
        received?(post, asked.count)
        if faults.latencyMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(faults.latencyMilliseconds))
        }
        if faults.hangSeconds > 0 {
            try? await Task.sleep(for: .seconds(faults.hangSeconds))
        }
        if faults.alwaysFail || (faults.errorRate > 0 && Double.random(in: 0..<1) < faults.errorRate) {
            return .content(
                Data("<html><body>Internal Server Error</body></html>".utf8), type: "text/html", status: 500)
        }
        let entries: [SimulatedPage.Entry] = asked.map { text in
            guard let number = try? TrackingNumber(parsing: text) else {
                return .invalid(text.filter(\.isNumber))
            }
            // Another carrier's parcel is one Yamato never registers.
            guard SimulatedCarriers.owner(of: number) == .yamato else {
                return .parcel(SimulatedParcel(number: number, epoch: .distantFuture))
            }
            return .parcel(SimulatedParcel(number: number, epoch: epoch))
        }
        var page = Data(SimulatedPage.html(for: entries, now: clock.now).utf8)
        if faults.changedLayout { page = ChangedLayout.apply(to: page, carrier: .yamato) }
        if faults.truncatePages {
            page = page.prefix(page.count / 2)
        }
        return .content(page, type: "text/html; charset=UTF-8")
    }

    /// A 400 naming the first key of a JSON object body that is not one of `known`; `nil` when all are.
    private static func unknownKey(in body: Data, known: [String]) -> HTTPResponse? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        guard let unknown = object.keys.sorted().first(where: { !known.contains($0) }) else { return nil }
        let shown = String(unknown.unicodeScalars.prefix(64).map { $0.value < 0x20 ? "?" : Character($0) })
        return .problem(
            status: 400, title: "Bad Request",
            detail: "unknown key \"\(shown)\"; the keys are \(known.joined(separator: ", "))")
    }

    private static func updateFaults(_ request: HTTPRequest, state: SimulatorState) async -> HTTPResponse {
        if let problem = unknownKey(in: request.body, known: SimulatorFaults.CodingKeys.allCases.map(\.rawValue)) {
            return problem
        }
        let update: SimulatorFaultsUpdate
        do {
            update = try JSONDecoder().decode(SimulatorFaultsUpdate.self, from: request.body)
        } catch {
            return .problem(
                status: 400, title: "Bad Request",
                detail: "the body is not a JSON object of fault settings (latency_ms, error_rate, always_fail, "
                    + "hang_seconds, truncate_pages, changed_layout)")
        }
        let faults = update.applied(to: await state.faults)
        if let problem = faults.problem {
            return .problem(status: 400, title: "Bad Request", detail: problem)
        }
        await state.set(faults)
        return .json(faults)
    }

    private static func updateClock(_ request: HTTPRequest, clock: SimulatorClock) -> HTTPResponse {
        if let problem = unknownKey(in: request.body, known: ["now", "speed"]) { return problem }
        guard let setting = try? JSONDecoder().decode(ClockSetting.Update.self, from: request.body) else {
            return .problem(
                status: 400, title: "Bad Request",
                detail: "the body is not {\"now\": ISO 8601 time, \"speed\": number}; both keys are optional")
        }
        var now: Date?
        if let text = setting.now {
            guard let parsed = ISO8601DateFormatter().date(from: text) else {
                return .problem(
                    status: 400, title: "Bad Request",
                    detail: "now \"\(text)\" is not an ISO 8601 time; expected e.g. 2026-11-29T12:00:00+09:00")
            }
            now = parsed
        }
        if let speed = setting.speed, !(0...1_000_000).contains(speed) {
            return .problem(
                status: 400, title: "Bad Request", detail: "speed \(speed) is out of range; expected 0 to 1000000")
        }
        clock.set(now: now, speed: setting.speed)
        return .json(ClockSetting(clock: clock))
    }
}

/// The simulator clock as the admin endpoint shows it.
struct ClockSetting: Codable {
    let now: String
    let speed: Double

    init(clock: SimulatorClock) {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        now = formatter.string(from: clock.now)
        speed = clock.speed
    }

    struct Update: Decodable {
        let now: String?
        let speed: Double?
    }
}

/// What the simulator received, and its current faults.
actor SimulatorState {
    private(set) var faults: SimulatorFaults
    private var posts = 0
    private var numbers = 0
    private var numbersPerPost: [Int: Int] = [:]
    private var inFlight = 0
    private var maxInFlight = 0
    private var lastArrival: ContinuousClock.Instant?
    private var shortestGap: Duration?
    private var carrierRequests: [Carrier: (requests: Int, numbers: Int)] = [:]
    /// The Sagawa form states issued, newest last; the oldest are forgotten (and then refused).
    private var sagawaStates: [String] = []
    private var issued = 0

    init(faults: SimulatorFaults) {
        self.faults = faults
    }

    /// Counts one form POST as it arrives; returns the faults to apply to it. Pair with ``finishPost()``.
    /// Counts a POST as it arrives. - Returns: the faults in force and which POST this is (from 1).
    func record(post numberCount: Int) -> (faults: SimulatorFaults, post: Int) {
        posts += 1
        numbers += numberCount
        numbersPerPost[numberCount, default: 0] += 1
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        let now = ContinuousClock.now
        if let lastArrival { shortestGap = min(shortestGap ?? .seconds(86_400), lastArrival.duration(to: now)) }
        lastArrival = now
        return (faults, posts)
    }

    /// A POST counted by ``record(post:)`` has been answered.
    /// The page as the faults have it: in a changed layout when `changed_layout` is on.
    func changed(_ page: Data, _ carrier: Carrier) -> Data {
        faults.changedLayout ? ChangedLayout.apply(to: page, carrier: carrier) : page
    }

    func finishPost() {
        inFlight -= 1
    }

    /// Counts a request to Sagawa's or Japan Post's pages.
    func count(_ carrier: Carrier, numbers: Int) {
        let current = carrierRequests[carrier] ?? (0, 0)
        carrierRequests[carrier] = (current.requests + 1, current.numbers + numbers)
    }

    func issueSagawaState() -> (tree: String, state: String) {
        issued += 1
        let token = "H4sIAAAAAAAAA\(issued)"
        sagawaStates.append(token)
        if sagawaStates.count > 64 { sagawaStates.removeFirst(sagawaStates.count - 64) }
        return (token, token + "S")
    }

    func acceptsSagawaState(tree: String, state: String) -> Bool {
        sagawaStates.contains(tree) && state == tree + "S"
    }

    func set(_ faults: SimulatorFaults) {
        self.faults = faults
    }

    struct Statistics: Codable {
        let posts: Int
        let numbers: Int
        /// POSTs by how many numbers they carried, keyed "1" … "10" (and "0" for empty forms).
        let numbersPerPost: [String: Int]
        /// The most POSTs being answered at the same time.
        let maxInFlight: Int
        /// The shortest time between the arrivals of two POSTs, in milliseconds; `nil` before the second.
        let shortestGapMilliseconds: Double?
        /// Requests to Sagawa's and Japan Post's pages (form GETs included) and the numbers they carried.
        let carriers: [String: [String: Int]]

        enum CodingKeys: String, CodingKey {
            case carriers
            case posts, numbers
            case numbersPerPost = "numbers_per_post"
            case maxInFlight = "max_in_flight"
            case shortestGapMilliseconds = "shortest_gap_ms"
        }
    }

    var statistics: Statistics {
        Statistics(
            posts: posts, numbers: numbers,
            numbersPerPost: Dictionary(uniqueKeysWithValues: numbersPerPost.map { (String($0.key), $0.value) }),
            maxInFlight: maxInFlight, shortestGapMilliseconds: shortestGap.map { $0 / .milliseconds(1) },
            carriers: Dictionary(
                uniqueKeysWithValues: carrierRequests.map { ($0.key.rawValue, ["requests": $0.value.requests, "numbers": $0.value.numbers]) }))
    }
}
