import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Testing
import KuronekoAccounts

@testable import KuronekoServer
@testable import KuronekoStore

/// Signing in, in-process: a wrong name and a wrong password are one answer; guessing is slowed (429); a
/// session is a new token whatever cookie came with the sign-in (no fixation); a change needs the CSRF token; a
/// viewer reads the same list and changes nothing; a member removed, or signed out everywhere, is out at once.
@Suite("API: signing in", .timeLimit(.minutes(5)))
struct SignInAPITests {
    static func send(
        _ harness: Harness, _ method: String, _ target: String, _ body: String = "", cookie: String? = nil,
        csrf: String? = nil
    ) async -> HTTPResponse {
        var headers = ["content-type": "application/json"]
        if let cookie { headers["cookie"] = "kuroneko_session=\(cookie)" }
        if let csrf { headers["x-csrf-token"] = csrf }
        return await harness.api.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Data(body.utf8)))
    }

    static func signIn(_ harness: Harness, _ name: String, _ password: String, cookie: String? = nil) async throws
        -> (token: String, csrf: String, response: HTTPResponse)
    {
        let response = await send(harness, "POST", "/v1/session", #"{"name": "\#(name)", "password": "\#(password)"}"#, cookie: cookie)
        let set = response.headers.first { $0.0.lowercased() == "set-cookie" }?.1 ?? ""
        let token = set.split(separator: ";").first.map { String($0.dropFirst("kuroneko_session=".count)) } ?? ""
        let csrf = (try? JSON(data: response.body))?["csrf_token"]?.string ?? ""
        return (token, csrf, response)
    }

    /// A harness whose list has these accounts (the first its admin, the others with their roles; each password
    /// is NAME-password), in force for the key ring.
    static func withAccounts(_ people: [(name: String, role: ListRole)]) async throws -> (Harness, any AccountStore) {
        let harness = await Harness(answer: { _, _ in throw URLError(.cannotConnectToHost) })
        let accounts: any AccountStore = harness.store
        for person in people {
            let user = try await accounts.createUser(
                name: person.name, displayName: person.name,
                passwordHash: Passwords.hash("\(person.name)-password", parameters: .init(logN: 10)), at: Date())
            if person.role != .admin { try await accounts.setMember(list: "local", user: user.id, role: person.role, at: Date()) }
        }
        await harness.keysChanged()
        return (harness, accounts)
    }

    /// One address guessing many accounts is slowed as one guesser; another address, and the machine itself (a
    /// reverse proxy's), are not held up by it; the address is the socket's, never a header.
    @Test func guessingFromOneAddress() async throws {
        let (harness, _) = try await Self.withAccounts([("mama", .admin), ("papa", .staff)])
        func attempt(_ name: String, _ password: String, from client: UInt64) async -> HTTPResponse {
            var request = HTTPRequest(
                method: "POST", target: "/v1/session", headers: ["content-type": "application/json", "x-forwarded-for": "10.9.9.9"],
                body: Data(#"{"name": "\#(name)", "password": "\#(password)"}"#.utf8))
            request.client = client
            return await harness.api.respond(to: request)
        }
        // 203.0.113.7 and 198.51.100.2 as the adapter names them (1 + the address as it is in memory), and 127.0.0.1.
        func key(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> UInt64 {
            1 + UInt64(UInt32(bigEndian: UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)))
        }
        let guesser = key(203, 0, 113, 7)
        var statuses: [Int] = []
        for index in 0..<7 { statuses.append(await attempt(index % 2 == 0 ? "mama" : "nobody\(index)", "guess", from: guesser).status) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        // The guesser is slowed for papa too, though papa's account had no failure.
        #expect(await attempt("papa", "papa-password", from: guesser).status == 429)
        // Papa from elsewhere is let in.
        #expect(await attempt("papa", "papa-password", from: key(198, 51, 100, 2)).status == 200)
        // Behind a proxy everyone comes from 127.0.0.1: its failures count per account only.
        let proxy = key(127, 0, 0, 1)
        var request = HTTPRequest(method: "GET", target: "/")
        request.client = proxy
        #expect(request.clientIsLoopback)
        request.client = guesser
        #expect(!request.clientIsLoopback)
        for index in 0..<7 { _ = await attempt("nobody\(index)", "guess", from: proxy) }
        #expect(await attempt("papa", "papa-password", from: proxy).status == 200)
    }

    /// On a server with no account yet, a made-up invitation cannot make the first account (the list's admin).
    @Test func noFirstAccountFromAGuess() async throws {
        let harness = await Harness(answer: { _, _ in throw URLError(.cannotConnectToHost) })
        let answer = await Self.send(
            harness, "POST", "/v1/invitations/accept", #"{"token": "inv_x", "name": "intruder", "password": "intruder-password"}"#)
        #expect(answer.status == 410)
        #expect(try await harness.store.hasAccounts() == false)
        #expect(await Self.send(harness, "GET", "/v1/watches").status == 200, "the open API stays open")
    }

    @Test func household() async throws {
        let harness = await Harness(answer: { _, _ in throw URLError(.cannotConnectToHost) })
        let accounts: any AccountStore = harness.store
        let quick = Passwords.Parameters(logN: 10)
        let mama = try await accounts.createUser(
            name: "mama", displayName: "ママ", passwordHash: Passwords.hash("mama-password", parameters: quick), at: Date())
        let papa = try await accounts.createUser(
            name: "papa", displayName: "パパ", passwordHash: Passwords.hash("papa-password", parameters: quick), at: Date())
        try await accounts.setMember(list: "local", user: papa.id, role: .viewer, at: Date())
        // Once people have accounts the list is nobody's without signing in (or a key).
        await harness.keysChanged()
        let closed = await Self.send(harness, "GET", "/v1/watches")
        #expect(closed.status == 401)
        #expect(try JSON(data: closed.body)["detail"]?.string?.hasPrefix("sign in first") == true)

        let wrong = try await Self.signIn(harness, "mama", "not-her-password")
        let nobody = try await Self.signIn(harness, "grandpa", "mama-password")
        #expect(wrong.response.status == 401 && nobody.response.status == 401)
        // The same words whether the account exists or not.
        let wrongDetail = try JSON(data: wrong.response.body)["detail"]?.string
        let nobodyDetail = try JSON(data: nobody.response.body)["detail"]?.string
        #expect(wrongDetail != nil && wrongDetail == nobodyDetail)

        // A cookie the browser came with is never the session: sign-in makes a new one.
        let planted = String(repeating: "ab", count: 32)
        let signed = try await Self.signIn(harness, "MAMA", "mama-password", cookie: planted)
        #expect(signed.response.status == 200, "\(String(decoding: signed.response.body, as: UTF8.self))")
        let set = signed.response.headers.first { $0.0.lowercased() == "set-cookie" }?.1 ?? ""
        #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict"))
        #expect(signed.token.count == 64 && signed.token != planted)
        #expect(await Self.send(harness, "GET", "/v1/watches", cookie: planted).status == 401)

        // Reads with the cookie; a change needs the CSRF token.
        #expect(await Self.send(harness, "GET", "/v1/watches", cookie: signed.token).status == 200)
        let number = ValidNumbers.numbers(1)[0].digits
        let forged = await Self.send(harness, "POST", "/v1/watches", #"{"number": "\#(number)"}"#, cookie: signed.token)
        let forgedReason = try JSON(data: forged.body)["reason"]?.string
        #expect(forged.status == 403 && forgedReason == "csrf")
        let added = await Self.send(
            harness, "POST", "/v1/watches", #"{"number": "\#(number)"}"#, cookie: signed.token, csrf: "wrong")
        #expect(added.status == 403)
        let really = await Self.send(
            harness, "POST", "/v1/watches", #"{"number": "\#(number)"}"#, cookie: signed.token, csrf: signed.csrf)
        #expect(really.status == 201)

        // The viewer sees the same list and changes nothing.
        let viewer = try await Self.signIn(harness, "papa", "papa-password")
        let list = try JSON(data: await Self.send(harness, "GET", "/v1/watches", cookie: viewer.token).body)
        #expect(list["watches"]?.elements.compactMap { $0["number"]?.string } == [number])
        let refused = await Self.send(
            harness, "DELETE", "/v1/watches/\(number)", cookie: viewer.token, csrf: viewer.csrf)
        let refusedReason = try JSON(data: refused.body)["reason"]?.string
        #expect(refused.status == 403 && refusedReason == "viewer_only")
        #expect(try await harness.store.watch(try TrackingNumber(parsing: number), owner: .local) != nil)

        // Removed from the list: out at once.
        #expect(try await accounts.removeMember(list: "local", user: papa.id))
        #expect(await Self.send(harness, "GET", "/v1/watches", cookie: viewer.token).status == 401)

        // Signed out everywhere: every session of hers ends.
        let other = try await Self.signIn(harness, "mama", "mama-password")
        let out = await Self.send(harness, "POST", "/v1/session/everywhere", cookie: signed.token, csrf: signed.csrf)
        #expect(out.status == 204)
        #expect(await Self.send(harness, "GET", "/v1/watches", cookie: other.token).status == 401)
        _ = mama

        // A sign-in that is not JSON (a form another site posts) is refused.
        let form = await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: "/v1/session", headers: ["content-type": "text/plain"],
                body: Data(#"{"name": "mama", "password": "mama-password"}"#.utf8)))
        #expect(form.status == 415)

        // Guessing is slowed: past five failures, 429 with Retry-After.
        var last = HTTPResponse(status: 0)
        for _ in 0..<7 { last = try await Self.signIn(harness, "mama", "guess").response }
        #expect(last.status == 429)
        #expect(last.headers.contains { $0.0 == "Retry-After" })
    }
}

extension SignInAPITests {
    @Test func invitations() async throws {
        let (harness, accounts) = try await Self.withAccounts([("owner", .admin)])
        let admin = try await Self.signIn(harness, "owner", "owner-password")
        let invited = await Self.send(harness, "POST", "/v1/invitations", #"{"role": "staff"}"#, cookie: admin.token, csrf: admin.csrf)
        #expect(invited.status == 201)
        let token = try #require(try JSON(data: invited.body)["token"]?.string)
        for bad in [#"{"role": "owner"}"#, #"{"role": "staff", "days": 30}"#, #"{"role": "staff", "x": 1}"#, "[]"] {
            #expect(await Self.send(harness, "POST", "/v1/invitations", bad, cookie: admin.token, csrf: admin.csrf).status == 400)
        }
        // A made-up token makes no account.
        let guessed = await Self.send(
            harness, "POST", "/v1/invitations/accept", #"{"token": "inv_guess", "name": "intruder", "password": "intruder-password"}"#)
        #expect(guessed.status == 410)
        #expect(try await accounts.user(named: "intruder") == nil)
        let short = await Self.send(harness, "POST", "/v1/invitations/accept", #"{"token": "\#(token)", "name": "staff1", "password": "short"}"#)
        #expect(short.status == 400)
        let joined = await Self.send(
            harness, "POST", "/v1/invitations/accept", #"{"token": "\#(token)", "name": "Staff1", "password": "staff-password"}"#)
        #expect(joined.status == 201, "\(String(decoding: joined.body, as: UTF8.self))")
        let again = await Self.send(
            harness, "POST", "/v1/invitations/accept", #"{"token": "\#(token)", "name": "staff2", "password": "staff-password"}"#)
        #expect(again.status == 410)
        let staff = try await Self.signIn(harness, "staff1", "staff-password")
        #expect(try JSON(data: staff.response.body)["role"]?.string == "staff")
        let number = ValidNumbers.numbers(1)[0].digits
        #expect(await Self.send(harness, "POST", "/v1/watches", #"{"number": "\#(number)"}"#, cookie: staff.token, csrf: staff.csrf).status == 201)
        // Staff do not manage members.
        #expect(await Self.send(harness, "POST", "/v1/invitations", #"{"role": "viewer"}"#, cookie: staff.token, csrf: staff.csrf).status == 403)
        let members = try JSON(data: await Self.send(harness, "GET", "/v1/members", cookie: staff.token).body)
        #expect(members["members"]?.elements.compactMap { $0["name"]?.string } == ["owner", "staff1"])
        // The admin removes them: out at once; the log says who did what.
        #expect(await Self.send(harness, "DELETE", "/v1/members/staff1", cookie: admin.token, csrf: admin.csrf).status == 204)
        #expect(await Self.send(harness, "GET", "/v1/watches", cookie: staff.token).status == 401)
        let log = try await accounts.auditLog(list: "local", before: nil, limit: 10)
        #expect(log.map(\.action) == ["member_removed", "added", "joined", "invited"])
        #expect(log[1].actor == "staff1" && log[1].detail == number)
        // The admin reads the log, as JSON and as a sheet; staff do not.
        let read = try JSON(data: await Self.send(harness, "GET", "/v1/audit?limit=2", cookie: admin.token).body)
        #expect(read["entries"]?.elements.compactMap { $0["action"]?.string } == ["member_removed", "added"])
        #expect(read["next_before"]?.string != nil)
        let sheet = await Self.send(harness, "GET", "/v1/audit?format=csv", cookie: admin.token)
        #expect(String(decoding: sheet.body, as: UTF8.self).contains("staff1"))
        for bad in ["/v1/audit?limit=0", "/v1/audit?before=yesterday"] {
            #expect(await Self.send(harness, "GET", bad, cookie: admin.token).status == 400)
        }
    }
}

extension SignInAPITests {
    @Test func keysForAList() async throws {
        let (harness, accounts) = try await Self.withAccounts([("owner", .admin), ("clerk", .staff)])
        let clerk = try #require(try await accounts.user(named: "clerk"))
        let staff = try await Self.signIn(harness, "clerk", "clerk-password")
        // No higher than the maker's role.
        let tooHigh = await Self.send(harness, "POST", "/v1/keys", #"{"name": "shop-admin", "role": "admin"}"#, cookie: staff.token, csrf: staff.csrf)
        #expect(tooHigh.status == 403)
        for bad in [#"{"name": "a b", "role": "staff"}"#, #"{"name": "x", "role": "boss"}"#, #"{"name": "x"}"#] {
            #expect(await Self.send(harness, "POST", "/v1/keys", bad, cookie: staff.token, csrf: staff.csrf).status == 400)
        }
        let made = await Self.send(harness, "POST", "/v1/keys", #"{"name": "shop-system", "role": "staff"}"#, cookie: staff.token, csrf: staff.csrf)
        #expect(made.status == 201)
        let key = try #require(try JSON(data: made.body)["key"]?.string)
        let reader = await Self.send(harness, "POST", "/v1/keys", #"{"name": "dashboard", "role": "viewer"}"#, cookie: staff.token, csrf: staff.csrf)
        let readerKey = try #require(try JSON(data: reader.body)["key"]?.string)
        await harness.keysChanged()
        // The key works on the list (not a list of its own), as staff; the viewer's key reads only.
        let number = ValidNumbers.numbers(1)[0].digits
        let added = await harness.api.respond(to: HTTPRequest(
            method: "POST", target: "/v1/watches", headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
            body: Data(#"{"number": "\#(number)"}"#.utf8)))
        #expect(added.status == 201)
        #expect(try await harness.store.watch(try TrackingNumber(parsing: number), owner: .local) != nil)
        // A staff key changes parcels, not the list's settings or its channels, whatever role a client claims.
        let staffHeaders = [
            "authorization": "Bearer \(key)", "content-type": "application/json", "x-kuroneko-role": "admin",
            "x-kuroneko-member-id": "1",
        ]
        let settings = await harness.api.respond(to: HTTPRequest(
            method: "PUT", target: "/v1/notices/settings", headers: staffHeaders,
            body: Data(#"{"shop": {"name": "店", "address": "東京都", "contact": "03-1234-5678"}}"#.utf8)))
        #expect(settings.status == 403 && String(decoding: settings.body, as: UTF8.self).contains("you are staff"))
        let channel = await harness.api.respond(to: HTTPRequest(
            method: "POST", target: "/v1/channels", headers: staffHeaders,
            body: Data(#"{"kind": "ntfy", "url": "http://127.0.0.1:9/shop"}"#.utf8)))
        #expect(channel.status == 403 && String(decoding: channel.body, as: UTF8.self).contains("staff role"))
        let listChannel = try await harness.store.addChannel(
            NewChannel(kind: "ntfy", destination: Data(#"{"url":"http://127.0.0.1:9/all"}"#.utf8), numbers: nil,
                kinds: [.changed], language: "ja", quietHours: nil), owner: .local, now: Date())
        let removal = await harness.api.respond(to: HTTPRequest(
            method: "DELETE", target: "/v1/channels/\(listChannel.id)", headers: staffHeaders))
        #expect(removal.status == 403)
        #expect(try await harness.store.channels(owner: .local).count == 1)
        let read = await harness.api.respond(to: HTTPRequest(method: "GET", target: "/v1/watches", headers: ["authorization": "Bearer \(readerKey)"]))
        #expect(read.status == 200)
        let refused = await harness.api.respond(to: HTTPRequest(
            method: "DELETE", target: "/v1/watches/\(number)", headers: ["authorization": "Bearer \(readerKey)"]))
        #expect(refused.status == 403)
        // The admin sees the list's keys and revokes one; staff cannot list them.
        #expect(await Self.send(harness, "GET", "/v1/keys", cookie: staff.token).status == 403)
        let admin = try await Self.signIn(harness, "owner", "owner-password")
        let keys = try JSON(data: await Self.send(harness, "GET", "/v1/keys", cookie: admin.token).body)
        #expect(keys["keys"]?.elements.compactMap { $0["name"]?.string } == ["shop-system", "dashboard"])
        #expect(await Self.send(harness, "DELETE", "/v1/keys/dashboard", cookie: admin.token, csrf: admin.csrf).status == 204)
        await harness.keysChanged()
        let revoked = await harness.api.respond(to: HTTPRequest(method: "GET", target: "/v1/watches", headers: ["authorization": "Bearer \(readerKey)"]))
        #expect(revoked.status == 401)
        // The clerk removed: the keys the clerk made stop.
        #expect(try await accounts.removeMember(list: "local", user: clerk.id))
        await harness.keysChanged()
        let gone = await harness.api.respond(to: HTTPRequest(method: "GET", target: "/v1/watches", headers: ["authorization": "Bearer \(key)"]))
        #expect(gone.status == 401)
        let log = try await accounts.auditLog(list: "local", before: nil, limit: 10).map(\.action)
        #expect(log.contains("key_made") && log.contains("key_revoked") && log.contains("added"))
    }
}

extension SignInAPITests {
    @Test func eachMembersOwnChannels() async throws {
        let (harness, _) = try await Self.withAccounts([("mama", .admin), ("kid", .viewer)])
        let mama = try await Self.signIn(harness, "mama", "mama-password")
        let child = try await Self.signIn(harness, "kid", "kid-password")
        func add(_ session: (token: String, csrf: String, response: HTTPResponse), _ body: String) async -> HTTPResponse {
            await Self.send(harness, "POST", "/v1/channels", body, cookie: session.token, csrf: session.csrf)
        }
        let mine = await add(mama, #"{"kind": "ntfy", "url": "http://127.0.0.1:9/mama", "device": "ママのiPhone", "kinds": ["delivered"]}"#)
        #expect(mine.status == 201, "\(String(decoding: mine.body, as: UTF8.self))")
        let shared = await add(mama, #"{"kind": "ntfy", "url": "http://127.0.0.1:9/family", "shared": true}"#)
        #expect(shared.status == 201)
        // A viewer is told on their own phone too, but makes nothing for the whole list.
        let kids = await add(child, #"{"kind": "ntfy", "url": "http://127.0.0.1:9/kid", "device": "Pixel", "kinds": ["arriving_soon"]}"#)
        #expect(kids.status == 201, "\(String(decoding: kids.body, as: UTF8.self))")
        #expect(await add(child, #"{"kind": "ntfy", "url": "http://127.0.0.1:9/x", "shared": true}"#).status == 403)
        for bad in [#"{"kind": "ntfy", "url": "http://127.0.0.1:9/y", "shared": "yes"}"#,
                    #"{"kind": "ntfy", "url": "http://127.0.0.1:9/y", "device": ""}"#] {
            #expect(await add(mama, bad).status == 400)
        }
        // The kid sees the list's channel and their own; mama, the admin, every one.
        let seen = try JSON(data: await Self.send(harness, "GET", "/v1/channels", cookie: child.token).body)
        #expect(seen["channels"]?.elements.compactMap { $0["device"]?.string } == ["Pixel"])
        #expect(seen["channels"]?.elements.count == 2)
        let all = try JSON(data: await Self.send(harness, "GET", "/v1/channels", cookie: mama.token).body)
        #expect(all["channels"]?.elements.count == 3)
        // The kid cannot remove mama's phone; removes their own.
        let mamaID = try #require(try JSON(data: mine.body)["id"]?.int)
        let kidID = try #require(try JSON(data: kids.body)["id"]?.int)
        #expect(await Self.send(harness, "DELETE", "/v1/channels/\(mamaID)", cookie: child.token, csrf: child.csrf).status == 404)
        #expect(await Self.send(harness, "DELETE", "/v1/channels/\(kidID)", cookie: child.token, csrf: child.csrf).status == 204)
        // Each channel hears the events its member chose.
        let stored = try await harness.store.channels(owner: .local)
        #expect(stored.first { $0.device == "ママのiPhone" }?.kinds == [.delivered])
    }

    /// A member's own channel that names no events hears what needs them, not every change of the list's parcels;
    /// the list's channel (shared by an admin) hears every parcel's news; the page is told which to offer.
    @Test func aMembersOwnChannelStartsQuiet() async throws {
        let (harness, _) = try await Self.withAccounts([("tencho", .admin), ("aoi", .staff)])
        let admin = try await Self.signIn(harness, "tencho", "tencho-password")
        let staff = try await Self.signIn(harness, "aoi", "aoi-password")
        let own = await Self.send(
            harness, "POST", "/v1/channels", #"{"kind": "ntfy", "url": "http://127.0.0.1:9/aoi"}"#, cookie: staff.token,
            csrf: staff.csrf)
        #expect(own.status == 201, "\(String(decoding: own.body, as: UTF8.self))")
        #expect(try JSON(data: own.body)["kinds"]?.elements.compactMap(\.string) == ["exception", "kept_reminder", "stalled", "overdue"])
        let shared = await Self.send(
            harness, "POST", "/v1/channels", #"{"kind": "ntfy", "url": "http://127.0.0.1:9/shop", "shared": true}"#,
            cookie: admin.token, csrf: admin.csrf)
        #expect(try JSON(data: shared.body)["kinds"]?.elements.compactMap(\.string).contains("changed") == true)
        let offered = try JSON(data: await Self.send(harness, "GET", "/v1/channels", cookie: staff.token).body)
        #expect(offered["default_kinds"]?.elements.compactMap(\.string) == ["exception", "kept_reminder", "stalled", "overdue"])
        let stored = try await harness.store.channels(owner: .local)
        #expect(stored.first { $0.member != nil }?.kinds == AnnouncementKind.memberKinds)
        #expect(stored.first { $0.member == nil }?.kinds.contains(.changed) == true)
    }
}

extension SignInAPITests {
    /// A shop: the admin invites two staff and a viewer; staff import a sheet and mark a parcel handled; the
    /// viewer changes nothing (403 with its reason); the audit log names each.
    @Test func shop() async throws {
        let (harness, accounts) = try await Self.withAccounts([("tencho", .admin)])
        let admin = try await Self.signIn(harness, "tencho", "tencho-password")
        var members: [String: (token: String, csrf: String)] = [:]
        for (name, role) in [("aoi", "staff"), ("ren", "staff"), ("mio", "viewer")] {
            let invited = await Self.send(harness, "POST", "/v1/invitations", #"{"role": "\#(role)"}"#, cookie: admin.token, csrf: admin.csrf)
            let token = try #require(try JSON(data: invited.body)["token"]?.string)
            let joined = await Self.send(
                harness, "POST", "/v1/invitations/accept", #"{"token": "\#(token)", "name": "\#(name)", "password": "\#(name)-password"}"#)
            #expect(joined.status == 201)
            let set = joined.headers.first { $0.0.lowercased() == "set-cookie" }?.1 ?? ""
            let cookie = set.split(separator: ";").first.map { String($0.dropFirst("kuroneko_session=".count)) } ?? ""
            members[name] = (cookie, try JSON(data: joined.body)["csrf_token"]?.string ?? "")
        }
        let numbers = ValidNumbers.numbers(3)
        let sheet = (["伝票番号,お客様管理番号"] + numbers.enumerated().map { "\($0.element.digits),A-\($0.offset)" })
            .joined(separator: "\r\n") + "\r\n"
        let aoi = try #require(members["aoi"])
        let imported = await harness.api.respond(to: HTTPRequest(
            method: "POST", target: WatchRoutes.importPath,
            headers: ["content-type": "text/csv", "cookie": "kuroneko_session=\(aoi.token)", "x-csrf-token": aoi.csrf],
            body: Data(sheet.utf8)))
        #expect(imported.status == 200, "\(String(decoding: imported.body, as: UTF8.self))")
        let ren = try #require(members["ren"])
        let handled = await Self.send(
            harness, "PATCH", "/v1/watches/\(numbers[0].digits)", #"{"record": {"handled": true}}"#, cookie: ren.token, csrf: ren.csrf)
        #expect(handled.status == 200)
        #expect(try await harness.store.watch(numbers[0], owner: .local)?.record?.handled?.by != nil)
        // The shop's settings are the admin's.
        let settings = await Self.send(harness, "PUT", "/v1/notices/settings", "{}", cookie: ren.token, csrf: ren.csrf)
        #expect(settings.status == 403)
        #expect(try JSON(data: settings.body)["detail"]?.string?.hasPrefix("only an admin of the list can do this; you are staff") == true)
        #expect(await Self.send(harness, "PUT", "/v1/notices/settings", "{}", cookie: admin.token, csrf: admin.csrf).status == 200)
        let mio = try #require(members["mio"])
        for (method, target, body) in [
            ("PATCH", "/v1/watches/\(numbers[1].digits)", #"{"label": "x"}"#), ("DELETE", "/v1/watches/\(numbers[1].digits)", ""),
            ("POST", "/v1/watches", #"{"number": "\#(numbers[2].digits)"}"#), ("PUT", "/v1/notices/settings", "{}"),
        ] {
            let refused = await Self.send(harness, method, target, body, cookie: mio.token, csrf: mio.csrf)
            #expect(refused.status == 403, "\(method) \(target)")
            #expect(try JSON(data: refused.body)["reason"]?.string == "viewer_only")
        }
        let viewed = try JSON(data: await Self.send(harness, "GET", "/v1/watches", cookie: mio.token).body)
        #expect(viewed["watches"]?.elements.count == 3)
        let log = try await accounts.auditLog(list: "local", before: nil, limit: 20)
        #expect(log.contains { $0.actor == "aoi" && $0.action == "imported" && $0.detail.hasPrefix("3 parcels") })
        #expect(log.contains { $0.actor == "ren" && $0.action == "edited" && $0.detail.contains("handled") })
        #expect(!log.contains { $0.actor == "mio" && $0.action != "joined" })
    }
}
