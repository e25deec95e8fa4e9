import Foundation
import Kuroneko
import KuronekoTestSupport

// The arrival estimate's error on held-out history: a simulated history (SimulatedDeliveries: two carriers, three
// first offices, five prefectures) is cut in time; the estimate learns from the older 80% and is asked for each
// parcel of the newer 20% as it started; its day is compared with the day the parcel came.
// Usage: swift run -c release ForecastBenchmark [HISTORY ...] [--seed N]

var sizes: [Int] = []
var seed: UInt64 = 2026
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--seed", let value = arguments.popFirst().flatMap(UInt64.init) {
        seed = value
    } else if let size = Int(argument), size >= 10 {
        sizes.append(size)
    } else {
        print("usage: ForecastBenchmark [HISTORY ...] [--seed N]  (HISTORY: parcels, at least 10)")
        exit(2)
    }
}
if sizes.isEmpty { sizes = [100, 300, 1_000, 3_000] }

struct Tally {
    var asked = 0
    var answered = 0
    var exact = 0
    var inRange = 0
    var absoluteErrors: [Int] = []

    mutating func add(actual: JapanDateTime, estimate: TransitForecast.Estimate?) {
        asked += 1
        guard let estimate else { return }
        answered += 1
        // Both are days without a time (midnight in Japan): whole days apart.
        let error = Int((actual.instant.timeIntervalSince(estimate.day.instant) / 86_400).rounded())
        if error == 0 { exact += 1 }
        if estimate.earliest <= actual, actual <= estimate.latest { inRange += 1 }
        absoluteErrors.append(abs(error))
    }

    func line(_ name: String) -> String {
        let sorted = absoluteErrors.sorted()
        let p90 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((0.9 * Double(sorted.count)).rounded(.up)) - 1)]
        let mean = sorted.isEmpty ? 0 : Double(sorted.reduce(0, +)) / Double(sorted.count)
        func share(_ count: Int) -> String { answered == 0 ? "–" : String(format: "%.1f%%", 100 * Double(count) / Double(answered)) }
        return name.padding(toLength: 40, withPad: " ", startingAt: 0)
            + "\(answered)/\(asked)".padding(toLength: 11, withPad: " ", startingAt: 0)
            + share(exact).padding(toLength: 9, withPad: " ", startingAt: 0)
            + share(inRange).padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(format: "%.2f", mean).padding(toLength: 8, withPad: " ", startingAt: 0) + "\(p90)"
    }
}

let now = Date(timeIntervalSince1970: 1_796_000_000)
print("seed \(seed); the estimate learns from the older 80% of the history, asked for each of the newer 20%")
print("history  basis".padding(toLength: 40, withPad: " ", startingAt: 0) + "answered   exact    in range  mean|e|  p90|e|")
for size in sizes {
    var generator = SimulatedDeliveries(seed: seed)
    let history = generator.history(size, span: 180, now: now)
    let cut = size * 4 / 5
    let learnt = history[..<cut].map(\.sample)
    var all = Tally()
    var carrierOnly = Tally()
    var byBasis: [TransitForecast.Basis: Tally] = [:]
    for parcel in history[cut...] {
        let estimate = TransitForecast.estimate(
            learnt, carrier: parcel.carrier, product: parcel.product, origin: parcel.origin, destination: parcel.destination,
            start: parcel.start)
        all.add(actual: parcel.deliveryDay, estimate: estimate)
        if let basis = estimate?.basis { byBasis[basis, default: Tally()].add(actual: parcel.deliveryDay, estimate: estimate) }
        // The same without product, office or prefecture: what the carrier alone would say.
        let plain = TransitForecast.estimate(learnt, carrier: parcel.carrier, origin: nil, destination: nil, start: parcel.start)
        carrierOnly.add(actual: parcel.deliveryDay, estimate: plain)
    }
    print(all.line("\(size)     all"))
    for basis in TransitForecast.Basis.allCases {
        if let tally = byBasis[basis] { print(tally.line("\(size)       \(basis.rawValue)")) }
    }
    print(carrierOnly.line("\(size)     (the carrier alone)"))
}
