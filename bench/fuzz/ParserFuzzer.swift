import Foundation

// libFuzzer entry point: every input must end in shipments or a TrackingPageError, never a crash, a leak
// report or a sanitizer finding. Compiled into one module with the library's sources by run.sh.
private let referenceTime = Date(timeIntervalSince1970: 1_790_000_000)
private let askedNumbers = ["327754459830", "766154809302", "292125879511"].compactMap {
    try? TrackingNumber(parsing: $0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func parserFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let parser = TrackingPageParser()
    _ = try? parser.parse(body, now: referenceTime)
    // The same bytes as the answer to a request, and read as Shift_JIS, reach the count and number checks
    // and the charset conversion.
    _ = try? parser.parse(body, expecting: Array(askedNumbers.prefix(size % 4)), now: referenceTime)
    if size % 3 == 0 {
        _ = try? parser.parse(body, charset: "Shift_JIS", now: referenceTime)
    }
    if size < 64 {
        _ = try? TrackingNumber(parsing: String(decoding: body, as: UTF8.self))
    }
    return 0
}
