import Foundation
import Testing

@testable import KuronekoNotify

/// The IMAP response reader on whatever a server sends: pieces, literals, floods, garbage.
@Suite("IMAP responses", .timeLimit(.minutes(10)))
struct IMAPResponseReaderTests {
    @Test("a literal across pieces, one too large dropped and counted, a line too long refused, garbage read without a trap")
    func hostile() throws {
        var reader = IMAPResponseReader(maximumLiteral: 8)
        for piece in ["* 1 FETCH (UID 7 BODY[] {5}\r\nab", "cde)\r\n", "* 2 FETCH (UID 8 BODY[] {12}\r\n0123456789ab)\r\nK1 OK done\r\n"] {
            reader.feed(Data(piece.utf8))
        }
        let first = try #require(try reader.next())
        #expect(first.tag == "*" && first.literals == [Data("abcde".utf8)] && first.text.hasSuffix("{5})"))
        let second = try #require(try reader.next())
        #expect(second.literals.isEmpty && second.droppedLiterals == 1)
        #expect(try reader.next()?.condition == "OK")
        #expect(try reader.next() == nil)

        var long = IMAPResponseReader(maximumLiteral: 8)
        long.feed(Data(repeating: 0x61, count: IMAPResponseReader.maximumLine + 10))
        #expect(throws: MailboxError.self) { try long.next() }

        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var garbage = IMAPResponseReader(maximumLiteral: 1 << 10)
            garbage.feed(Data((0..<Int.random(in: 0..<4_096, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            garbage.feed(Data("{99999999999999}\r\n{5}\r\n{x}\r\n".utf8))
            while (try? garbage.next()) != nil {}
        }
    }
}
