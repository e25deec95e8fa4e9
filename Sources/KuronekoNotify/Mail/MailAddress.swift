/// An e-mail address a channel sends to: `local@domain`, checked so that it can stand in an SMTP envelope
/// and a header as it is (no display name, no quoting, no comments, nothing that could end a line).
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public var description: String { text }

    /// The characters RFC 5322 allows in an unquoted local part (its `atext`), and the dot between them.
    private static let localCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-.")
    private static let domainCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")

    /// - Throws: ``MailAddressError`` naming what is wrong.
    public init(parsing input: String) throws(MailAddressError) {
        guard input.utf8.count <= 254 else { throw .tooLong(input.utf8.count) }
        let parts = input.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .shape }
        let (local, domain) = (parts[0], parts[1])
        guard !local.isEmpty, local.utf8.count <= 64, local.allSatisfy(Self.localCharacters.contains),
            local.first != ".", local.last != ".", !local.contains("..")
        else { throw .localPart }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.allSatisfy(Self.domainCharacters.contains),
            labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.first != "-" && $0.last != "-" })
        else { throw .domain }
        text = input
    }
}

/// Why an e-mail address was refused.
public enum MailAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLong(Int)
    case shape
    case localPart
    case domain

    public var description: String {
        switch self {
        case .tooLong(let bytes): "is \(bytes) bytes long; an address has at most 254"
        case .shape: "is not one address of the form name@example.jp"
        case .localPart:
            "has a part before @ that is empty, too long, or holds a space, a quote or another character an "
                + "address cannot have unquoted"
        case .domain: "has a domain that is not a host name such as example.jp"
        }
    }
}
