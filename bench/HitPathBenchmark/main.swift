import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization

// A cache hit through the API and all its middleware, in one process, without sockets: what the
// application adds to libmicrohttpd's work, with warm caches (the same request answered in a loop) and with
// cold ones (4 MiB of other memory touched between two answers, as the kernel's network work does between
// two requests on a server), and warm on two threads at once (as the server's two workers answer); then the
// middleware added one layer at a time, cold. Run by hand: bench/hit-path.sh. With `serve PORT LAYERS` it
// serves the same stack over HTTP instead (see below; bench/layers.sh).
let clock = ManualClock()
let metrics = Metrics()
let client = TrackingClient(
    configuration: .init(minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: .zero),
    transport: ScriptedTransport.pages(clock: clock), clock: clock, observer: metrics.recordUpstream)
let service = ShipmentService(
    client: MultiCarrierClient(clients: [client]), clock: clock, metrics: metrics, configuration: .init())
guard let devNull = FileHandle(forWritingAtPath: "/dev/null") else { fatalError("cannot open /dev/null") }
let log = BufferedLogWriter(handle: devNull)
let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("hit-path-\(UUID().uuidString).sqlite")
let store = try SQLiteWatchStore(path: storePath.path)
defer { try? FileManager.default.removeItem(at: storePath) }
let keys = APIKeyMiddleware(ring: APIKeyRing(store: store), required: false)
let httpMetrics = HTTPMetrics(registry: metrics.registry)
// As `serve` composes it (the watch list's routes and the web app are not on a hit's path).
let layers: [(name: String, layer: any HTTPMiddleware)] = [
    ("request id", RequestIDMiddleware()), ("access log", AccessLogMiddleware(sink: log)),
    ("metrics", MetricsMiddleware(httpMetrics)), ("API keys", keys), ("compression", CompressionMiddleware()),
    ("conditional requests", ConditionalRequestMiddleware()),
]
let responder = APIResponder(service: service, metrics: metrics, httpMetrics: httpMetrics, clock: clock)
let request = HTTPRequest(method: "GET", path: "/v1/shipments/3277-5445-9830", headers: ["Host": "127.0.0.1"])
_ = await MiddlewareStack([], around: responder).respond(to: request)  // fetched once: every answer is a hit

// `HitPathBenchmark serve PORT LAYERS`: the same API behind its first LAYERS middleware layers (0 to 6, in the
// order above), served over libmicrohttpd by KuronekoHTTP with `serve`'s defaults until the process is
// killed. bench/layers.sh measures each beside the bare servers.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "serve" {
    guard arguments.count == 3, let port = UInt16(arguments[1]), let count = Int(arguments[2]),
        (0...layers.count).contains(count)
    else {
        FileHandle.standardError.write(Data("usage: HitPathBenchmark serve PORT LAYERS (0 to \(layers.count))\n".utf8))
        exit(2)
    }
    let server = try HTTPServer(
        configuration: HTTPServer.Configuration(port: port),
        application: MiddlewareStack(layers.prefix(count).map(\.layer), around: responder))
    FileHandle.standardError.write(Data("serving on \(server.port) with \(count) layers\n".utf8))
    while true { try await Task.sleep(for: .seconds(3_600)) }
}

/// Nanoseconds per answer over `count` answers, not counting the time spent touching `other`.
@Sendable func measure(_ stack: MiddlewareStack<APIResponder>, count: Int, touching other: inout [UInt8]) -> Double {
    var answering: UInt64 = 0
    var hits = 0
    for _ in 0..<count {
        for index in stride(from: 0, to: other.count, by: 64) { other[index] &+= 1 }
        let start = DispatchTime.now().uptimeNanoseconds
        if case .now(let response) = stack.answer(request), response.status == 200 { hits += 1 }
        answering += DispatchTime.now().uptimeNanoseconds - start
    }
    precondition(hits == count, "an answer was not a cache hit")
    return Double(answering) / Double(count)
}

/// Nanoseconds per answer on each of two threads answering at once (as the server's two workers do), warm:
/// what the answers' shared state (locks, counters, reference counts) costs when two cores touch it.
func measureOnTwoThreads(_ stack: MiddlewareStack<APIResponder>, count: Int) -> Double {
    let results = Mutex<[Double]>([])
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<2 {
        Thread {
            var none: [UInt8] = []
            let each = measure(stack, count: count, touching: &none)
            results.withLock { $0.append(each) }
            done.signal()
        }.start()
    }
    done.wait()
    done.wait()
    return results.withLock { $0.reduce(0, +) / Double($0.count) }
}

var none: [UInt8] = []
var other = [UInt8](repeating: 1, count: 4 << 20)
let everything = MiddlewareStack(layers.map(\.layer), around: responder)
for round in 1...5 {
    let warm = measure(everything, count: 200_000, touching: &none)
    let cold = measure(everything, count: 5_000, touching: &other)
    let two = measureOnTwoThreads(everything, count: 200_000)
    print(
        "round \(round): \(Int(warm)) ns per answer with warm caches, \(Int(cold)) ns with cold ones, "
            + "\(Int(two)) ns warm on each of two threads at once")
}
print("cold, layers added one at a time (median of 5 runs of 2,000 answers):")
for count in 0...layers.count {
    let stack = MiddlewareStack(layers.prefix(count).map(\.layer), around: responder)
    let runs = (0..<5).map { _ in measure(stack, count: 2_000, touching: &other) }.sorted()
    print("  \(count == 0 ? "the responder alone" : "+ " + layers[count - 1].name): \(Int(runs[2])) ns")
}
