import Foundation

/// A folder name as IMAP servers take it: RFC 3501's modified UTF-7 (section 5.1.3). Printable ASCII stands for
/// itself and `&` is written `&-`; any other run of characters is `&`, its UTF-16 in base64 with `,` for `/`
/// and no padding, then `-`: a folder named 通販 is `&kBqMqQ-` on the wire.
public enum IMAPFolderName {
    /// The name to send for `folder`. A name that is all ASCII is sent as written, so one already in modified
    /// UTF-7 (as a server lists it) keeps working; a name with other characters is encoded.
    public static func wire(_ folder: String) -> String {
        guard folder.unicodeScalars.contains(where: { !$0.isASCII }) else { return folder }
        var encoded = ""
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            let bytes = pending.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let base64 = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "/", with: ",").replacingOccurrences(of: "=", with: "")
            encoded += "&" + base64 + "-"
            pending = []
        }
        for scalar in folder.unicodeScalars {
            if scalar.value >= 0x20, scalar.value <= 0x7E {
                flush()
                encoded += scalar == "&" ? "&-" : String(scalar)
            } else {
                pending.append(contentsOf: String(scalar).utf16)
            }
        }
        flush()
        return encoded
    }
}
