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
public struct MultiCarrierClient: Sendable {
    public let clients: [Carrier: TrackingClient]
    public let memory: CarrierMemory

    public init(clients: [TrackingClient], memory: CarrierMemory = CarrierMemory()) {
        self.clients = Dictionary(
            clients.map { ($0.configuration.carrier, $0) }, uniquingKeysWith: { first, _ in first })
        self.memory = memory
    }

    /// The carriers asked for a number, in order.
    public func route(for number: TrackingNumber, carrier: Carrier? = nil) -> [Carrier] {
        let order = carrier.map { [$0] } ?? memory.carrier(of: number).map { [$0] } ?? number.candidates
        return order.filter { clients[$0] != nil }
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
        var first: Shipment?
        for (step, next) in route.enumerated() {
            guard let client = clients[next] else { continue }
            let shipment = try await client.track(number, priority: priority, deadline: deadline)
            if shipment.status.code != .notFound || step == route.count - 1 {
                return finish(shipment, first: first, asked: Array(route.prefix(step + 1)))
            }
            first = first ?? shipment
        }
        throw Self.unserved(number, carrier: carrier)
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

    /// Asks every number its carrier at `step` of its route, all carriers at once; the `not_found` ones
    /// with a carrier left go on to the next step.
    /// - Parameter numbers: the numbers of this step, in the caller's order (which the batches keep).
    private func stage(
        _ numbers: [TrackingNumber], routes: [TrackingNumber: [Carrier]], step: Int, firsts: [TrackingNumber: Shipment],
        priority: UpstreamPriority, yield: @escaping @Sendable (TrackingNumber, Result<Shipment, TrackingError>) -> Void
    ) async {
        var byCarrier: [Carrier: [TrackingNumber]] = [:]
        for number in numbers {
            guard let route = routes[number], step < route.count else { continue }
            byCarrier[route[step], default: []].append(number)
        }
        let onward = await withTaskGroup(of: [(TrackingNumber, Shipment)].self) { group in
            for (next, numbers) in byCarrier {
                guard let client = clients[next] else { continue }
                group.addTask {
                    var passed: [(TrackingNumber, Shipment)] = []
                    for await answer in client.answers(for: numbers, priority: priority) {
                        let route = routes[answer.number] ?? []
                        switch answer.result {
                        case .success(let shipment) where shipment.status.code == .notFound && step + 1 < route.count:
                            passed.append((answer.number, shipment))
                        case .success(let shipment):
                            let finished = finish(
                                shipment, first: firsts[answer.number], asked: Array(route.prefix(step + 1)))
                            yield(answer.number, .success(finished))
                        case .failure(let error):
                            yield(answer.number, .failure(error))
                        }
                    }
                    return passed
                }
            }
            var onward: [(TrackingNumber, Shipment)] = []
            for await passed in group { onward += passed }
            return onward
        }
        guard !onward.isEmpty, !Task.isCancelled else { return }
        var nextFirsts = firsts
        for (number, shipment) in onward { nextFirsts[number] = firsts[number] ?? shipment }
        let passed = Set(onward.map(\.0))
        await stage(
            numbers.filter { passed.contains($0) }, routes: routes, step: step + 1, firsts: nextFirsts,
            priority: priority, yield: yield)
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
