import Foundation
import KuronekoNotify
import Testing
import KuronekoAccounts

@testable import KuronekoServer

/// The parts of signing in, each on its own: passwords as scrypt hashes, the throttle on guessing, the session
/// cookie and its CSRF token.
@Suite("Accounts: passwords, throttle, session cookie")
struct AccountPartsTests {
    /// Cheap parameters: the format and the check are what is tried here, not the cost.
    static let quick = Passwords.Parameters(logN: 10, r: 8, p: 1)

    @Test func passwords() throws {
        let stored = try #require(Passwords.hash("correct horse", parameters: Self.quick))
        #expect(stored.hasPrefix("scrypt$10$8$1$"))
        #expect(Passwords.verify("correct horse", stored: stored))
        #expect(!Passwords.verify("correct horsf", stored: stored))
        #expect(!Passwords.verify("", stored: stored))
        // Two hashes of one password differ (each its own salt).
        #expect(Passwords.hash("correct horse", parameters: Self.quick) != stored)
        // A stored form this program did not write, or with out-of-range parameters, matches nothing.
        for forged in ["", "plain", "scrypt$30$8$1$AAAA$AAAA", "scrypt$10$8$1$AAAA$" + String(repeating: "A", count: 43), "bcrypt$x"] {
            #expect(!Passwords.verify("correct horse", stored: forged))
        }
        #expect(Passwords.problem("short") != nil)
        // One bound in bytes: 1,024 of them, however many characters that is.
        #expect(Passwords.problem(String(repeating: "a", count: 1_024)) == nil)
        #expect(Passwords.problem(String(repeating: "a", count: 1_025)) != nil)
        #expect(Passwords.problem(String(repeating: "猫", count: 342)) != nil)
        #expect(Passwords.problem("tab\there ok") != nil)
        #expect(Passwords.problem("ねこのパスワード") == nil)
        #expect(Passwords.Parameters().memory == 32 * 1_048_576)
    }

    @Test func throttle() {
        var throttle = SignInThrottle()
        let start = Date(timeIntervalSince1970: 1_796_000_000)
        for index in 0..<5 {
            #expect(throttle.ask(account: "Mama", address: "192.0.2.1", at: start + Double(index)) == .allowed)
            throttle.record(account: "Mama", address: "192.0.2.1", succeeded: false, at: start + Double(index))
        }
        // Past five failures: a wait, doubling; the account is slowed from any address, the address for any account.
        #expect(throttle.ask(account: "mama", address: "198.51.100.7", at: start + 4) == .wait(seconds: 1))
        #expect(throttle.ask(account: "papa", address: "192.0.2.1", at: start + 4) == .wait(seconds: 1))
        throttle.record(account: "Mama", address: "192.0.2.1", succeeded: false, at: start + 5)
        #expect(throttle.ask(account: "Mama", address: "192.0.2.9", at: start + 5) == .wait(seconds: 2))
        #expect(throttle.ask(account: "Mama", address: "192.0.2.9", at: start + 8) == .allowed)
        // A success clears the account, not the address.
        throttle.record(account: "Mama", address: "192.0.2.9", succeeded: true, at: start + 8)
        #expect(throttle.ask(account: "Mama", address: "192.0.2.9", at: start + 8) == .allowed)
        #expect(throttle.ask(account: "Kid", address: "192.0.2.1", at: start + 5.5) == .wait(seconds: 2))
        // Outside the window it is forgotten.
        #expect(throttle.ask(account: "Kid", address: "192.0.2.1", at: start + 1_000) == .allowed)
        // A million guesses, each a new account: remembered ones bounded.
        var many = SignInThrottle()
        for index in 0..<12_000 {
            many.record(account: "a\(index)", address: "203.0.113.\(index % 250)", succeeded: false, at: start)
        }
        #expect(many.accounts.count <= many.policy.remembered && many.addresses.count == 250)
    }

    @Test func cookie() {
        let token = SessionCookie.newToken()
        #expect(token.count == 64)
        let set = SessionCookie.setting(token, secure: true)
        #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Secure") && set.contains("Path=/"))
        #expect(!SessionCookie.setting(token, secure: false).contains("Secure"))
        #expect(SessionCookie.token(inCookieHeader: "theme=dark; kuroneko_session=\(token); x=1") == token)
        #expect(SessionCookie.token(inCookieHeader: "kuroneko_session=abc") == nil)
        #expect(SessionCookie.token(inCookieHeader: nil) == nil)
        #expect(SessionCookie.csrfMatches("abc", expected: "abc") && !SessionCookie.csrfMatches("abd", expected: "abc"))
        #expect(!SessionCookie.csrfMatches(nil, expected: "abc") && !SessionCookie.csrfMatches("", expected: ""))
        #expect(SessionCookie.changes("POST") && SessionCookie.changes("delete") && !SessionCookie.changes("GET"))
        #expect(SessionCookie.clearing(secure: true).contains("Max-Age=0"))
    }
}
