import Foundation

/// What a carrier's word for a state means: its code and English words (`nil` where it is not known).
struct CarrierWordMeaning: Sendable {
    let code: StatusCode
    let english: String?
}

/// Checks every carrier's page parser shares: a whole page, not a blocking page, and exactly the numbers
/// asked for, in order.
enum CarrierPage {
    /// A complete page ends with `</html>`; anything else was cut off on the way.
    static func checkComplete(_ bytes: UnsafeRawBufferPointer) throws(TrackingPageError) {
        var end = bytes.count
        while end > 0, [0x20, 0x09, 0x0A, 0x0D, 0x00].contains(bytes[end - 1]) { end -= 1 }
        guard end > 0 else {
            throw TrackingPageError(.emptyBody, "the response body is empty; expected a tracking result page")
        }
        // Not one `<`: the text a browser window shows, copied, has none of the markup the parsers read.
        guard bytes[..<end].contains(UInt8(ascii: "<")) else {
            throw TrackingPageError(
                .plainText,
                "this is text, not the page's HTML (text copied from a browser window has none of the markup the "
                    + "parser reads): save the page itself (the browser's Save Page As…, as a web page, HTML only) and "
                    + "parse that file, or look the number up with `kuroneko track NUMBER`")
        }
        let closing = Array("</html>".utf8)
        let tail = end >= closing.count ? bytes[(end - closing.count)..<end].map { $0 | 0x20 } : []
        guard tail.elementsEqual(closing.map { $0 | 0x20 }) else {
            throw TrackingPageError(
                .truncated,
                "the page is truncated: it ends after \(bytes.count) bytes without the closing </html> tag")
        }
    }

    /// A whole page as a tree, in the charset given or else the one its `<meta>` declares, or else `fallback`
    /// (a carrier whose pages were Shift_JIS without always saying so).
    static func tree(of body: some ContiguousBytes, charset: String?, fallback: String? = nil) throws(TrackingPageError)
        -> HTMLElement
    {
        let result: Result<HTMLElement, TrackingPageError> = body.withUnsafeBytes { bytes in
            Result { () throws(TrackingPageError) in
                try checkComplete(bytes)
                let declared = String(decoding: bytes.prefix(2048), as: UTF8.self).lowercased().contains("charset")
                return try HTMLTree.parse(bytes, charset: charset ?? (declared ? nil : fallback))
            }
        }
        return try result.get()
    }

    /// The older layout the bytes look like, named for a person, or `nil`: the markers that survive in saved
    /// pages of Yamato's Shift_JIS tables of about 2009–2021 (replaced about September 2021). Sagawa's older
    /// `#MainList` page is not told apart: today's page keeps that id, so a changed page would be misnamed.
    static func olderLayout(in bytes: UnsafeRawBufferPointer) -> String? {
        func has(_ marker: String) -> Bool {
            let needle = Array(marker.utf8)
            guard needle.count <= bytes.count else { return false }
            return (0...(bytes.count - needle.count)).contains { start in
                needle.indices.allSatisfy { bytes[start + $0] | 0x20 == needle[$0] | 0x20 }
            }
        }
        if has("parts-tracking-invoice-block") { return nil }
        // Both of Yamato's older pages were Shift_JIS (today's is UTF-8, and embeds the same print popup).
        let yamato = has("kuronekoyamato") || has("tneko")
        if yamato, has("shift_jis"), has("class=\"meisai\"") || has("class=meisai") || has("class=\"saisin\"") {
            return "Yamato's older page (table.saisin and table.meisai, used until about September 2021)"
        }
        if yamato, has("shift_jis"), has("swd.writeln") || has("PRINT_HOOTER") {
            return "Yamato's older page (Shift_JIS tables and font tags, about 2009, replaced about September 2021)"
        }
        return nil
    }

    /// `; this is …: …` for a message of an unrecognised layout, when the page is an older one.
    static func olderLayoutNote(_ bytes: UnsafeRawBufferPointer) -> String {
        olderLayout(in: bytes).map {
            "; this is \($0), which Kuroneko does not read: look the number up again, or save today's page"
        } ?? ""
    }

    static func title(of root: HTMLElement) -> String {
        root.first { $0.name == "title" }.map { "\"\($0.squeezedText)\"" } ?? "none"
    }

    /// A denial page (a CDN's "Access Denied", a challenge) says nothing about the parcel: refused as
    /// `blocked`, never read as "not found".
    static func refuseBlocked(_ root: HTMLElement, carrier: String) throws(TrackingPageError) {
        let title = root.first { $0.name == "title" }?.squeezedText ?? ""
        let denied = ["Access Denied", "Just a moment", "Attention Required", "アクセスが拒否"]
        if denied.contains(where: { title.localizedCaseInsensitiveContains($0) }) {
            throw TrackingPageError(
                .blocked, "\(carrier) answered a denial page (title \"\(title)\") instead of tracking results")
        }
    }

    static func checkCount(_ count: Int, of what: String, expecting numbers: [TrackingNumber]?)
        throws(TrackingPageError)
    {
        if count == 0 {
            throw TrackingPageError(
                .unrecognizedLayout, "unrecognised page layout: expected at least one \(what), found 0")
        }
        if let numbers, numbers.count != count {
            throw TrackingPageError(
                .blockCountMismatch, "expected \(numbers.count) \(what) for \(numbers.count) numbers, found \(count)")
        }
    }

    static func checkNumber(_ number: TrackingNumber, at offset: Int, expecting numbers: [TrackingNumber]?)
        throws(TrackingPageError)
    {
        guard let numbers, number != numbers[offset] else { return }
        throw TrackingPageError(
            .numberMismatch,
            "result \(offset + 1) is for \(number), but \(numbers[offset]) was asked for at that position")
    }
}
