/// A long-running part of the server (the poller, the deliverer, the key ring's refresh, the stream of
/// shipments other servers record): `run()` works until its task is cancelled, then returns.
public protocol Service: Sendable {
    func run() async
}

/// A service made of a closure.
struct ClosureService: Service {
    let body: @Sendable () async -> Void

    func run() async { await body() }
}

/// Several services side by side, each in a child task; cancelling `run()` cancels every one, and `run()`
/// returns once all have ended.
struct ServiceGroup: Service {
    let services: [any Service]

    func run() async {
        await withDiscardingTaskGroup { group in
            for service in services {
                group.addTask { await service.run() }
            }
        }
    }
}
