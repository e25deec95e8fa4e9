import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Testing
import KuronekoAccounts
@testable import KuronekoServer
@testable import KuronekoStore

/// Two lists on one server: a member of one reaches nothing of the other, by number, search, cursor, change
/// feed, export, calendar, refresh, removal, notices or channels; what they do to their own list never touches
/// the other's.
@Suite("Lists kept apart", .timeLimit(.minutes(5)))
struct ListIsolationTests {
    @Test func anotherListsParcelsAreOutOfReach() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("mama", .admin)])
        let neighbour = try await accounts.createUser(
            name: "tonari", displayName: "隣", passwordHash: Passwords.hash("tonari-password", parameters: .init(logN: 10)),
            at: harness.clock.now)
        let theirs = try await accounts.createList(name: "隣の家", admin: neighbour.id, at: harness.clock.now)
        let mama = try await SignInAPITests.signIn(harness, "mama", "mama-password")
        let tonari = try await SignInAPITests.signIn(harness, "tonari", "tonari-password")
        #expect((try JSON(data: tonari.response.body))["list"]?.string == theirs.id)

        // Mama's parcel, with a record a search would find.
        let number = ValidNumbers.numbers(1)[0].digits
        let added = await SignInAPITests.send(
            harness, "POST", "/v1/watches", #"{"number": "\#(number)", "label": "ひみつ", "record": {"reference": "ORD-SECRET"}}"#,
            cookie: mama.token, csrf: mama.csrf)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let second = ValidNumbers.numbers(2)[1].digits
        _ = await SignInAPITests.send(
            harness, "POST", "/v1/watches", #"{"number": "\#(second)"}"#, cookie: mama.token, csrf: mama.csrf)
        let mamasList = await SignInAPITests.send(harness, "GET", "/v1/watches?limit=1", cookie: mama.token)
        let cursor = try JSON(data: mamasList.body)["next_cursor"]?.string
        let feed = try JSON(data: await SignInAPITests.send(harness, "GET", "/v1/watches/changes", cookie: mama.token).body)
        let since = feed["cursor"]?.string ?? "0"

        func tonariSees(_ method: String, _ target: String, _ body: String = "") async -> HTTPResponse {
            await SignInAPITests.send(harness, method, target, body, cookie: tonari.token, csrf: tonari.csrf)
        }
        for target in [
            "/v1/watches/\(number)", "/v1/watches/\(number)/changes", "/v1/watches/\(number)/deliveries",
            "/v1/watches/\(number)/notices",
        ] {
            #expect(await tonariSees("GET", target).status == 404, "\(target)")
        }
        for (method, target, body) in [
            ("PATCH", "/v1/watches/\(number)", #"{"label": "盗った"}"#), ("POST", "/v1/watches/\(number)/refresh", ""),
            ("DELETE", "/v1/watches/\(number)", ""), ("POST", "/v1/notices/preview", #"{"number": "\#(number)", "milestone": "shipped"}"#),
        ] {
            let answer = await tonariSees(method, target, body)
            #expect(answer.status == 404 || answer.status == 400, "\(method) \(target): \(answer.status)")
        }
        let removed = await tonariSees("POST", "/v1/watches/remove", #"{"numbers": ["\#(number)"]}"#)
        #expect(!String(decoding: removed.body, as: UTF8.self).contains("\"removed\":[\"\(number)\"]"))
        var everything = ""
        for target in [
            "/v1/watches", "/v1/watches?q=ORD-SECRET", "/v1/watches?q=ひみつ", "/v1/watches?format=csv",
            "/v1/watches/summary", "/v1/watches/changes?since=0", "/v1/watches/changes?since=\(since)", "/v1/calendar.ics",
            "/v1/watches?cursor=\(cursor ?? "")", "/v1/notices/days", "/v1/channels",
        ] {
            let answer = await tonariSees("GET", target)
            #expect(answer.status == 200, "\(target): \(answer.status)")
            everything += String(decoding: answer.body, as: UTF8.self) + "\n"
        }
        #expect(cursor != nil, "mama's list has a second page")
        for secret in [number, second, "ORD-SECRET", "ひみつ"] {
            #expect(!everything.contains(secret), "\(secret) in \(everything)")
        }
        // Mama's parcel is as she left it.
        let kept = try #require(try await harness.store.watch(try TrackingNumber(parsing: number), owner: .local))
        #expect(kept.label == "ひみつ")
        #expect(try await harness.store.watches(owner: WatchOwner(id: theirs.id), filter: .all, after: nil, limit: 10).isEmpty)
        // A member of the other list signs in to mama's list in vain.
        let wrong = await SignInAPITests.send(
            harness, "POST", "/v1/session", #"{"name": "tonari", "password": "tonari-password", "list": "local"}"#)
        #expect(wrong.status == 403 && String(decoding: wrong.body, as: UTF8.self).contains("not_a_member"))
    }

    /// A member of two lists turns from one to the other without the password: a new session (the old cookie
    /// ends), the other list's parcels; a list they are not in is refused; the CSRF token is needed as for any change.
    @Test func switchingLists() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("mama", .admin)])
        let mamaID = try #require(try await accounts.user(named: "mama")).id
        let parents = try await accounts.createList(name: "実家", admin: mamaID, at: harness.clock.now)
        let stranger = try await accounts.createList(name: "よそ", admin: nil, at: harness.clock.now)
        let number = try TrackingNumber(parsing: ValidNumbers.numbers(1)[0].digits)
        _ = try await harness.store.add(number, label: "お米", owner: WatchOwner(id: parents.id), webhook: nil, now: harness.clock.now)
        let mama = try await SignInAPITests.signIn(harness, "mama", "mama-password")
        let current = try JSON(data: await SignInAPITests.send(harness, "GET", "/v1/session", cookie: mama.token).body)
        #expect(current["name"]?.string == "mama" && current["list"]?.string == "local")
        #expect(current["lists"]?.elements.compactMap { $0["name"]?.string } == ["Kuroneko", "実家"])

        let body = #"{"list": "\#(parents.id)"}"#
        #expect(await SignInAPITests.send(harness, "POST", "/v1/session/list", body, cookie: mama.token).status == 403, "no CSRF token")
        let switched = await SignInAPITests.send(harness, "POST", "/v1/session/list", body, cookie: mama.token, csrf: mama.csrf)
        #expect(switched.status == 200, "\(String(decoding: switched.body, as: UTF8.self))")
        let cookie = switched.headers.first { $0.0.lowercased() == "set-cookie" }?.1 ?? ""
        let token = cookie.split(separator: ";").first.map { String($0.dropFirst("kuroneko_session=".count)) } ?? ""
        #expect(!token.isEmpty && token != mama.token)
        #expect(await SignInAPITests.send(harness, "GET", "/v1/watches", cookie: mama.token).status == 401, "the old session ended")
        let list = String(decoding: await SignInAPITests.send(harness, "GET", "/v1/watches", cookie: token).body, as: UTF8.self)
        #expect(list.contains("お米"))
        let csrf = try #require(try JSON(data: switched.body)["csrf_token"]?.string)
        for (wanted, status) in [(stranger.id, 403), ("nosuch", 403)] {
            let refused = await SignInAPITests.send(
                harness, "POST", "/v1/session/list", #"{"list": "\#(wanted)"}"#, cookie: token, csrf: csrf)
            #expect(refused.status == status)
        }
        for bad in [#"{"list": 7}"#, #"{"list": "local", "role": "admin"}"#, "[]"] {
            #expect(await SignInAPITests.send(harness, "POST", "/v1/session/list", bad, cookie: token, csrf: csrf).status == 400)
        }
    }
}
