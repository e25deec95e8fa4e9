import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import KuronekoWatch

// A cache hit through the API and all its middleware, in one process, without sockets: what the
// application adds to libmicrohttpd's work, with warm caches (the same request answered in a loop) and with
// cold ones (4 MiB of other memory touched between two answers, as the kernel's network work does between
// two requests on a server); then the middleware added one layer at a time, cold. Run by hand:
// bench/hit-path.sh
let clock = ManualClock()
let metrics = Metrics()
let client = TrackingClient(
    configuration: .init(minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: .zero),
    transport: ScriptedTransport.pages(clock: clock), clock: clock, observer: metrics.recordUpstream)
let service = ShipmentService(client: client, clock: clock, metrics: metrics, configuration: .init())
guard let devNull = FileHandle(forWritingAtPath: "/dev/null") else { fatalError("cannot open /dev/null") }
let log = BufferedLogWriter(handle: devNull)
let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("hit-path-\(UUID().uuidString).sqlite")
let store = try SQLiteWatchStore(path: storePath.path)
defer { try? FileManager.default.removeItem(at: storePath) }
let keys = APIKeyMiddleware(ring: APIKeyRing(store: store), required: false)
let httpMetrics = HTTPMetrics()
// As `serve` composes it (the watch list's routes and the web app are not on a hit's path).
let layers: [(name: String, layer: any HTTPMiddleware)] = [
    ("request id", RequestIDMiddleware()), ("access log", AccessLogMiddleware(sink: log)),
    ("metrics", MetricsMiddleware(httpMetrics)), ("API keys", keys), ("compression", CompressionMiddleware()),
    ("conditional requests", ConditionalRequestMiddleware()),
]
let responder = APIResponder(service: service, metrics: metrics, httpMetrics: httpMetrics, clock: clock)
let request = HTTPRequest(method: "GET", path: "/v1/shipments/3277-5445-9830", headers: ["Host": "127.0.0.1"])
_ = await MiddlewareStack([], around: responder).respond(to: request)  // fetched once: every answer is a hit

/// Nanoseconds per answer over `count` answers, not counting the time spent touching `other`.
func measure(_ stack: MiddlewareStack<APIResponder>, count: Int, touching other: inout [UInt8]) -> Double {
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

var none: [UInt8] = []
var other = [UInt8](repeating: 1, count: 4 << 20)
let everything = MiddlewareStack(layers.map(\.layer), around: responder)
for round in 1...5 {
    let warm = measure(everything, count: 200_000, touching: &none)
    let cold = measure(everything, count: 5_000, touching: &other)
    print("round \(round): \(Int(warm)) ns per answer with warm caches, \(Int(cold)) ns with cold ones")
}
print("cold, layers added one at a time (median of 5 runs of 2,000 answers):")
for count in 0...layers.count {
    let stack = MiddlewareStack(layers.prefix(count).map(\.layer), around: responder)
    let runs = (0..<5).map { _ in measure(stack, count: 2_000, touching: &other) }.sorted()
    print("  \(count == 0 ? "the responder alone" : "+ " + layers[count - 1].name): \(Int(runs[2])) ns")
}
