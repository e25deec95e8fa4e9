import Foundation
import Synchronization

/// Looks numbers up at whichever carrier knows them, one ``TrackingClient`` (its own scheduler, budget,
/// breaker and politeness) per carrier, so one carrier's outage or queue never slows another's lookups.
///
/// Which carrier: the one named, if any; else the one this client found for the number before
/// (``CarrierMemory``); else the number's ``TrackingNumber/candidates`` in order, moving to the next only
/// when one answers `not_found` (a 12-digit number at Yamato, then Sagawa, then Japan Post, each batched
/// with everything else going there). A number none of them knows is answered with the first carrier's
/// `not_found`, naming every carrier asked (``Shipment/carriersAsked``).
///
/// One carrier's trouble never holds a number another carrier may know: a candidate whose circuit is open is
/// asked last, one that fails moves the number on to the next (its error is the answer only when nobody
/// found the parcel), and a lookup of one number that waits longer than ``hedgeAfter`` for a carrier asks the
/// next one too, taking the first carrier that knows it.
public struct MultiCarrierClient: Sendable {
    public let clients: [Carrier: TrackingClient]
    public let memory: CarrierMemory
    /// How long one number's lookup waits for a carrier before asking its next candidate as well.
    public let hedgeAfter: Duration
    private let clock: any TrackingClock

    public init(
        clients: [TrackingClient], memory: CarrierMemory = CarrierMemory(), hedgeAfter: Duration = .seconds(2),
        clock: any TrackingClock = SystemClock()
    ) {
        self.clients = Dictionary(
            clients.map { ($0.configuration.carrier, $0) }, uniquingKeysWith: { first, _ in first })
        self.memory = memory
        self.hedgeAfter = hedgeAfter
        self.clock = clock
    }

    /// The carriers asked for a number, in order: a candidate whose circuit is open comes after the others.
    public func route(for number: TrackingNumber, carrier: Carrier? = nil) -> [Carrier] {
        let order = carrier.map { [$0] } ?? memory.carrier(of: number).map { [$0] } ?? number.candidates
        let served = order.filter { clients[$0] != nil }
        guard served.count > 1 else { return served }
        let open = served.filter { clients[$0]?.scheduler.statistics.circuit == .open }
        return served.filter { !open.contains($0) } + open
    }

    /// Looks one number up.
    /// - Throws: ``TrackingError`` (`carrier_unavailable` when no client serves the carriers it could be at),
    ///   or `CancellationError`.
    public func track(
        _ number: TrackingNumber, carrier: Carrier? = nil, priority: UpstreamPriority = .interactive,
        deadline: Duration? = nil
    ) async throws -> Shipment {
        let route = route(for: number, carrier: carrier)
        guard !route.isEmpty else { throw Self.unserved(number, carrier: carrier) }
        if route.count == 1, let client = clients[route[0]] {
            return finish(try await client.track(number, priority: priority, deadline: deadline), first: nil, asked: route)
        }
        return try await hedged(number, route: route, priority: priority, deadline: deadline)
    }

    /// What one carrier said of a number, or that the wait for the next candidate is over.
    private enum Event: Sendable {
        case answered(Int, Result<Shipment, TrackingError>)
        case waited
    }

    /// Asks the route's carriers one after another, the next as soon as one says `not_found` or fails, or
    /// once ``hedgeAfter`` has passed without its answer; the first parcel found is the answer (the others
    /// are called off).
    private func hedged(
        _ number: TrackingNumber, route: [Carrier], priority: UpstreamPriority, deadline: Duration?
    ) async throws -> Shipment {
        try await withThrowingTaskGroup(of: Event.self) { group in
            var started = 0
            var outcomes: [Int: Result<Shipment, TrackingError>] = [:]
            func startNext() {
                guard started < route.count, let client = clients[route[started]] else { return }
                let index = started
                started += 1
                group.addTask {
                    do {
                        return .answered(index, .success(try await client.track(number, priority: priority, deadline: deadline)))
                    } catch let error as TrackingError {
                        return .answered(index, .failure(error))
                    }
                }
                if started < route.count {
                    let clock = self.clock
                    let wait = hedgeAfter
                    group.addTask {
                        try await clock.sleep(until: clock.uptime + wait)
                        return .waited
                    }
                }
            }
            startNext()
            while let event = try await group.next() {
                switch event {
                case .waited:
                    // Only a wait still relevant starts a carrier: one whose turn came already is passed by. A
                    // carrier whose own queue says the answer is a while off (its politeness, not a hang) is waited
                    // for a while more.
                    guard outcomes.count < started else { break }
                    let waiting = clients[route[started - 1]]?.scheduler.statistics.estimatedWait ?? .zero
                    if waiting >= hedgeAfter {
                        let clock = self.clock
                        let wait = hedgeAfter
                        group.addTask {
                            try await clock.sleep(until: clock.uptime + wait)
                            return .waited
                        }
                    } else {
                        startNext()
                    }
                case .answered(let index, let outcome):
                    outcomes[index] = outcome
                    if case .success(let shipment) = outcome, shipment.status.code != .notFound {
                        group.cancelAll()
                        let firstMiss = (0..<index).compactMap { try? outcomes[$0]?.get() }.first
                        return finish(shipment, first: firstMiss, asked: Array(route.prefix(index + 1)))
                    }
                    if outcomes.count == started, started < route.count { startNext() }
                }
                if outcomes.count == route.count { break }
            }
            group.cancelAll()
            // Nobody found it: a carrier's failure is the answer (it may know the parcel), else the first
            // carrier's not_found naming every carrier asked.
            for index in route.indices {
                if case .failure(let error)? = outcomes[index] { throw error }
            }
            let misses = route.indices.compactMap { try? outcomes[$0]?.get() }
            guard let first = misses.first else { throw Self.unserved(number, carrier: nil) }
            return finish(first, first: first, asked: route)
        }
    }

    /// Many numbers, each distinct number looked up once, its answer handed over as soon as it is known
    /// (after its last carrier's answer): like ``TrackingClient/answers(for:priority:)``, per carrier.
    /// - Parameters:
    ///   - carrier: the carrier of every number; `carriers`, of some (watches that know theirs).
    public func answers(
        for numbers: [TrackingNumber], carrier: Carrier? = nil, carriers: [TrackingNumber: Carrier] = [:],
        priority: UpstreamPriority = .interactive
    ) -> AsyncStream<TrackingAnswer> {
        AsyncStream { continuation in
            let work = Task {
                let places = Dictionary(grouping: numbers.indices, by: { numbers[$0] })
                var seen = Set<TrackingNumber>()
                let distinct = numbers.filter { seen.insert($0).inserted }
                var routes: [TrackingNumber: [Carrier]] = [:]
                for number in distinct { routes[number] = route(for: number, carrier: carriers[number] ?? carrier) }
                let yield: @Sendable (TrackingNumber, Result<Shipment, TrackingError>) -> Void = { number, result in
                    for index in places[number] ?? [] {
                        continuation.yield(TrackingAnswer(index: index, number: number, result: result))
                    }
                }
                for number in distinct where routes[number]?.isEmpty != false {
                    yield(number, .failure(Self.unserved(number, carrier: carrier)))
                }
                let routed = distinct.filter { routes[$0]?.isEmpty == false }
                await stage(routed, routes: routes, step: 0, firsts: [:], priority: priority, yield: yield)
                continuation.finish()
            }
            continuation.onTermination = { _ in work.cancel() }
        }
    }

    /// Asks every number its carrier at `step` of its route, all carriers at once; the `not_found` and failed
    /// ones with a carrier left go on to the next step (a failure is remembered: it is the answer when no later
    /// carrier finds the parcel).
    /// - Parameter numbers: the numbers of this step, in the caller's order (which the batches keep).
    private func stage(
        _ numbers: [TrackingNumber], routes: [TrackingNumber: [Carrier]], step: Int, firsts: [TrackingNumber: Shipment],
        failures: [TrackingNumber: TrackingError] = [:], priority: UpstreamPriority,
        yield: @escaping @Sendable (TrackingNumber, Result<Shipment, TrackingError>) -> Void
    ) async {
        var byCarrier: [Carrier: [TrackingNumber]] = [:]
        for number in numbers {
            guard let route = routes[number], step < route.count else { continue }
            byCarrier[route[step], default: []].append(number)
        }
        let onward = await withTaskGroup(of: [(TrackingNumber, Result<Shipment, TrackingError>)].self) { group in
            for (next, numbers) in byCarrier {
                guard let client = clients[next] else { continue }
                group.addTask {
                    var passed: [(TrackingNumber, Result<Shipment, TrackingError>)] = []
                    for await answer in client.answers(for: numbers, priority: priority) {
                        let route = routes[answer.number] ?? []
                        let last = step + 1 >= route.count
                        switch answer.result {
                        case .success(let shipment) where shipment.status.code == .notFound && !last:
                            passed.append((answer.number, .success(shipment)))
                        case .success(let shipment) where shipment.status.code == .notFound:
                            // Nobody found it; a carrier that failed on the way might have.
                            if let failure = failures[answer.number] {
                                yield(answer.number, .failure(failure))
                            } else {
                                yield(answer.number, .success(finish(shipment, first: firsts[answer.number], asked: route)))
                            }
                        case .success(let shipment):
                            let finished = finish(
                                shipment, first: firsts[answer.number], asked: Array(route.prefix(step + 1)))
                            yield(answer.number, .success(finished))
                        case .failure(let error) where !last:
                            passed.append((answer.number, .failure(error)))
                        case .failure(let error):
                            yield(answer.number, .failure(failures[answer.number] ?? error))
                        }
                    }
                    return passed
                }
            }
            var onward: [(TrackingNumber, Result<Shipment, TrackingError>)] = []
            for await passed in group { onward += passed }
            return onward
        }
        guard !onward.isEmpty, !Task.isCancelled else { return }
        var nextFirsts = firsts
        var nextFailures = failures
        for (number, outcome) in onward {
            switch outcome {
            case .success(let shipment): nextFirsts[number] = firsts[number] ?? shipment
            case .failure(let error): nextFailures[number] = failures[number] ?? error
            }
        }
        let passed = Set(onward.map(\.0))
        await stage(
            numbers.filter { passed.contains($0) }, routes: routes, step: step + 1, firsts: nextFirsts,
            failures: nextFailures, priority: priority, yield: yield)
    }

    /// The answer to hand over: a found parcel is remembered at its carrier; a number nobody knows is the
    /// first carrier's `not_found`, naming the carriers asked.
    private func finish(_ shipment: Shipment, first: Shipment?, asked: [Carrier]) -> Shipment {
        guard shipment.status.code == .notFound else {
            memory.remember(shipment.trackingNumber, at: shipment.carrier)
            return shipment
        }
        var answer = first ?? shipment
        answer.carriersAsked = asked
        return answer
    }

    private static func unserved(_ number: TrackingNumber, carrier: Carrier?) -> TrackingError {
        let wanted = carrier.map { [$0] } ?? number.candidates
        return TrackingError(
            .carrierUnavailable,
            "\(number) would be looked up at \(wanted.map(\.rawValue).joined(separator: ", ")), which this client "
                + "does not serve")
    }
}

/// Which carrier each number was found at, so later lookups go straight there: at most ``capacity``
/// numbers, the oldest forgotten first.
public final class CarrierMemory: Sendable {
    public let capacity: Int
    private struct State {
        var carriers: [TrackingNumber: Carrier] = [:]
        var order: [TrackingNumber] = []
        var head = 0
    }

    private let state = Mutex(State())

    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    public func carrier(of number: TrackingNumber) -> Carrier? {
        state.withLock { $0.carriers[number] }
    }

    public func remember(_ number: TrackingNumber, at carrier: Carrier) {
        state.withLock { state in
            if state.carriers.updateValue(carrier, forKey: number) != nil { return }
            state.order.append(number)
            while state.carriers.count > capacity, state.head < state.order.count {
                state.carriers[state.order[state.head]] = nil
                state.head += 1
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }
}
