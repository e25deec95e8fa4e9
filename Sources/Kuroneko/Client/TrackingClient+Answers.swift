/// One number's answer: its shipment, or why it has none.
public struct TrackingAnswer: Sendable {
    /// Where the number stands in the list given; a number given twice is answered twice, once per place.
    public let index: Int
    public let number: TrackingNumber
    /// The shipment, or the ``TrackingError`` (with its code) of the POST that should have carried it.
    public let result: Result<Shipment, TrackingError>
}

extension TrackingClient {
    /// Looks up many numbers, ten per POST, each distinct number once, and hands each answer over as soon
    /// as its POST is answered: one failed POST gives each of its numbers an error, and every other
    /// number is still answered. The numbers are queued together and leave at once, without the batch
    /// window.
    ///
    /// The stream ends after the last answer. Ending the iteration early, or cancelling the task that
    /// iterates, calls off every lookup not yet answered (numbers not yet sent are never sent).
    /// - Returns: one ``TrackingAnswer`` per number given, in the order they arrive (``TrackingAnswer/index``
    ///   says where each belongs).
    public func answers(for numbers: [TrackingNumber], priority: UpstreamPriority = .interactive)
        -> AsyncStream<TrackingAnswer>
    {
        let scheduler = self.scheduler
        let deadline = configuration.lookupDeadline
        return AsyncStream { continuation in
            let work = Task {
                let places = Dictionary(grouping: numbers.indices, by: { numbers[$0] })
                let distinct = Array(BatchPlan(numbers).batches.joined())
                let tickets = await scheduler.want(distinct, priority: priority, timeout: deadline)
                await withTaskGroup(of: Void.self) { group in
                    for (number, ticket) in zip(distinct, tickets) {
                        group.addTask {
                            let result: Result<Shipment, TrackingError>
                            do {
                                result = .success(try await scheduler.result(of: ticket))
                            } catch let error as TrackingError {
                                result = .failure(error)
                            } catch {
                                await scheduler.abandon(ticket)  // cancelled: nobody reads the answer
                                return
                            }
                            for index in places[number] ?? [] {
                                continuation.yield(TrackingAnswer(index: index, number: number, result: result))
                            }
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in work.cancel() }
        }
    }
}
