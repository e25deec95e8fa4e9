import CLibXML2
import Foundation
import Kuroneko

// Times, for each fixture page, the full Kuroneko parse against libxml2's bare parse of the same bytes
// (the floor the extraction sits on). Prints one tab-separated row per page: name, bytes, µs ours, µs bare.
// Usage: ParserBenchmark PAGE.html... (run through bench/parser.sh)

let referenceTime = Date(timeIntervalSince1970: 1_790_000_000)
let options = Int32(
    HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
        | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)

/// Median over `rounds` of the mean time per call, each round running for at least `roundTime`.
func microsecondsPerCall(rounds: Int = 7, roundTime: Duration = .milliseconds(300), _ body: () -> Void) -> Double {
    for _ in 0..<50 { body() }
    var samples: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        var calls = 0
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < roundTime {
            for _ in 0..<20 { body() }
            calls += 20
            elapsed = start.duration(to: clock.now)
        }
        samples.append(elapsed / .microseconds(1) / Double(calls))
    }
    return samples.sorted()[rounds / 2]
}

xmlInitParser()
print("page\tbytes\tkuroneko_us\tlibxml2_bare_us")
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
    let ours = microsecondsPerCall {
        _ = try? parser.parse(page, now: referenceTime)
    }
    let bare = microsecondsPerCall {
        page.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
            if let document = htmlReadMemory(base, Int32(bytes.count), nil, nil, options) {
                xmlFreeDoc(document)
            }
        }
    }
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    print("\(name)\t\(page.count)\t\(String(format: "%.1f", ours))\t\(String(format: "%.1f", bare))")
}
