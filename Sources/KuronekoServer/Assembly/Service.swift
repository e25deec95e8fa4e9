/// A long-running part of the server (the poller, the deliverer, the key ring's refresh, the stream of
/// shipments other servers record), named for the log: `run()` works until its task is cancelled, then
/// returns; an error it throws ends it (see ``ServiceGroup`` for what happens then).
public protocol Service: Sendable {
    var name: String { get }
    func run() async throws
}

/// A named service made of a closure.
struct NamedService: Service {
    let name: String
    let body: @Sendable () async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }

    func run() async throws { try await body() }
}

/// The server's services, listed in order of dependence (each may rely on those before it): each runs in a
/// task of its own. When the group is cancelled they are stopped one at a time in reverse order, each
/// cancelled and waited for before the one it may rely on, and `stopped` is told each name as it ends.
/// Failure policy: a service that throws has ended; `failed` is told its name and error, and the others go
/// on (the server keeps answering; what the ended service did is no longer done until a restart).
struct ServiceGroup: Service {
    let name = "services"
    let services: [any Service]
    var failed: @Sendable (String, any Error) -> Void = { _, _ in }
    var stopped: @Sendable (String) -> Void = { _ in }

    func run() async {
        let failed = self.failed
        let tasks = services.map { service in
            Task {
                do {
                    try await service.run()
                } catch is CancellationError {
                } catch {
                    failed(service.name, error)
                }
            }
        }
        await untilCancelled()
        for (service, task) in zip(services, tasks).reversed() {
            task.cancel()
            await task.value
            stopped(service.name)
        }
    }
}
