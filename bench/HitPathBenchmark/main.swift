import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport

// A cache hit through the API and all its middleware, in one process, without sockets: what the
// application adds to libmicrohttpd's work, with warm caches (the same request answered in a loop) and with
// cold ones (4 MiB of other memory touched between two answers, as the kernel's network work does between
// two requests on a server). Run by hand: bench/hit-path.sh
let clock = ManualClock()
let metrics = Metrics()
let client = TrackingClient(
    configuration: .init(minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: .zero),
    transport: ScriptedTransport.pages(clock: clock), clock: clock, observer: metrics.recordUpstream)
let service = ShipmentService(client: client, clock: clock, metrics: metrics, configuration: .init())
guard let devNull = FileHandle(forWritingAtPath: "/dev/null") else { fatalError("cannot open /dev/null") }
let api = APIApplication.make(
    service: service, metrics: metrics, httpMetrics: HTTPMetrics(), clock: clock,
    log: BufferedLogWriter(handle: devNull))
let request = HTTPRequest(method: "GET", path: "/v1/shipments/3277-5445-9830", headers: ["Host": "127.0.0.1"])
_ = await api.respond(to: request)  // fetched once; every answer below is a cache hit

/// Nanoseconds per answer over `count` answers, not counting the time spent touching `other`.
func measure(count: Int, touching other: inout [UInt8]) -> Double {
    var answering: UInt64 = 0
    var hits = 0
    for _ in 0..<count {
        for index in stride(from: 0, to: other.count, by: 64) { other[index] &+= 1 }
        let start = DispatchTime.now().uptimeNanoseconds
        if case .now(let response) = api.answer(request), response.status == 200 { hits += 1 }
        answering += DispatchTime.now().uptimeNanoseconds - start
    }
    precondition(hits == count, "an answer was not a cache hit")
    return Double(answering) / Double(count)
}

var none: [UInt8] = []
var other = [UInt8](repeating: 1, count: 4 << 20)
for round in 1...5 {
    let warm = measure(count: 200_000, touching: &none)
    let cold = measure(count: 5_000, touching: &other)
    print("round \(round): \(Int(warm)) ns per answer with warm caches, \(Int(cold)) ns with cold ones")
}
