import CLibXML2
import Foundation
import Kuroneko

// Times, for each fixture page, the full Kuroneko parse against libxml2's bare parse of the same bytes into
// a document tree (what any libxml2-based parser pays before extracting anything). Prints one tab-separated
// row per page: name, bytes, µs ours, µs bare, and the median ratio of alternating rounds.
// Usage: ParserBenchmark PAGE.html... (run through bench/parser.sh)

let referenceTime = Date(timeIntervalSince1970: 1_790_000_000)
let options = Int32(
    HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
        | HTML_PARSE_NONET.rawValue)

/// Mean µs per call over a run of at least `duration`.
func microsecondsPerCall(for duration: Duration, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    while elapsed < duration {
        for _ in 0..<10 { body() }
        calls += 10
        elapsed = start.duration(to: clock.now)
    }
    return elapsed / .microseconds(1) / Double(calls)
}

/// Runs the two bodies in alternating rounds, so that both see the same machine: the medians of each, and
/// the median of the per-round ratios.
func compare(rounds: Int = 15, roundTime: Duration = .milliseconds(200), _ ours: () -> Void, _ bare: () -> Void)
    -> (ours: Double, bare: Double, ratio: Double)
{
    for _ in 0..<50 {
        ours()
        bare()
    }
    var oursSamples: [Double] = []
    var bareSamples: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<rounds {
        let oursTime = microsecondsPerCall(for: roundTime, ours)
        let bareTime = microsecondsPerCall(for: roundTime, bare)
        oursSamples.append(oursTime)
        bareSamples.append(bareTime)
        ratios.append(oursTime / bareTime)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return (median(oursSamples), median(bareSamples), median(ratios))
}

xmlInitParser()
print("page\tbytes\tkuroneko_us\tlibxml2_bare_us\tratio")
for path in CommandLine.arguments.dropFirst() {
    guard let page = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
        exit(2)
    }
    let parser = TrackingPageParser()
    do {
        _ = try parser.parse(page, now: referenceTime)
    } catch {
        FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
        exit(1)
    }
    let result = compare(
        { _ = try? parser.parse(page, now: referenceTime) },
        {
            page.withUnsafeBytes { bytes in
                let base = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
                if let document = htmlReadMemory(base, Int32(bytes.count), nil, nil, options) {
                    xmlFreeDoc(document)
                }
            }
        })
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    print(
        "\(name)\t\(page.count)\t\(String(format: "%.1f", result.ours))\t\(String(format: "%.1f", result.bare))"
            + "\t\(String(format: "%.3f", result.ratio))")
}
