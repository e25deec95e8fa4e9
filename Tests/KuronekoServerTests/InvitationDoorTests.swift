import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Testing
import KuronekoCrypto

@testable import KuronekoServer
@testable import KuronekoStore

/// Accepting an invitation with an existing account's name is the same door as signing in: the same throttle,
/// one answer for a wrong password; and an invitation never lowers a role the account has.
@Suite("API: the invitation door", .timeLimit(.minutes(5)))
struct InvitationDoorTests {
    static func invite(_ harness: Harness, _ role: ListRole, by admin: (token: String, csrf: String, response: HTTPResponse))
        async throws -> String
    {
        let invited = await SignInAPITests.send(
            harness, "POST", "/v1/invitations", #"{"role": "\#(role.rawValue)"}"#, cookie: admin.token, csrf: admin.csrf)
        return try #require(try JSON(data: invited.body)["token"]?.string)
    }

    static func accept(_ harness: Harness, _ token: String, _ name: String, _ password: String) async -> HTTPResponse {
        await SignInAPITests.send(
            harness, "POST", "/v1/invitations/accept",
            #"{"token": "\#(token)", "name": "\#(name)", "password": "\#(password)"}"#)
    }

    @Test("30 wrong passwords for a member through an invitation meet 429, as at /v1/session")
    func guesserMeetsTheThrottle() async throws {
        let (harness, _) = try await SignInAPITests.withAccounts([("owner", .admin), ("mama", .staff)])
        let admin = try await SignInAPITests.signIn(harness, "owner", "owner-password")
        let token = try await Self.invite(harness, .viewer, by: admin)
        var statuses: [Int] = []
        var details = Set<String>()
        for attempt in 0..<30 {
            let answer = await Self.accept(harness, token, "mama", "guess-\(attempt)-password")
            statuses.append(answer.status)
            if answer.status == 401 { details.insert((try? JSON(data: answer.body))?["detail"]?.string ?? "") }
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
        // The answer does not name the account, nor say that it exists.
        #expect(details.count == 1 && !(details.first ?? "").contains("mama") && !(details.first ?? "").contains("already"))
        // The throttle is the sign-in's: the right password at /v1/session is held back now too.
        #expect(try await SignInAPITests.signIn(harness, "mama", "mama-password").response.status == 429)
        // And the invitation was not used by any of it.
        #expect(await Self.accept(harness, token, "newcomer", "newcomer-password").status == 201)
    }

    @Test("an admin opening their own viewer link stays admin, is told so, and the link stays for its guest")
    func adminOpensOwnViewerLink() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("owner", .admin)])
        let admin = try await SignInAPITests.signIn(harness, "owner", "owner-password")
        let token = try await Self.invite(harness, .viewer, by: admin)
        let opened = await Self.accept(harness, token, "owner", "owner-password")
        #expect(opened.status == 200, "\(String(decoding: opened.body, as: UTF8.self))")
        let body = try JSON(data: opened.body)
        #expect(body["role"]?.string == "admin")
        #expect(body["note"]?.string?.contains("nothing changed") == true)
        let owner = try #require(try await accounts.user(named: "owner"))
        #expect(try await accounts.memberships(ofUser: owner.id).first { $0.listID == "local" }?.role == .admin)
        let guest = await Self.accept(harness, token, "grandma", "grandma-password")
        #expect(guest.status == 201)
        #expect(try JSON(data: guest.body)["role"]?.string == "viewer")
    }

    @Test("a staff member accepting an admin link becomes admin; a viewer link never lowers staff")
    func rolesOnlyRise() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("owner", .admin), ("aoi", .staff)])
        let admin = try await SignInAPITests.signIn(harness, "owner", "owner-password")
        let aoi = try #require(try await accounts.user(named: "aoi"))
        let role = { try await accounts.memberships(ofUser: aoi.id).first { $0.listID == "local" }?.role }
        let viewerLink = try await Self.invite(harness, .viewer, by: admin)
        #expect(await Self.accept(harness, viewerLink, "aoi", "aoi-password").status == 200)
        #expect(try await role() == .staff)
        let adminLink = try await Self.invite(harness, .admin, by: admin)
        let raised = await Self.accept(harness, adminLink, "aoi", "aoi-password")
        #expect(raised.status == 201)
        #expect(try JSON(data: raised.body)["role"]?.string == "admin")
        #expect(try await role() == .admin)
        // The store keeps the higher role whatever order invitations are used in.
        let lower = Secrets.sha256("inv_lower")
        let now = Date()
        try await accounts.createInvitation(
            tokenHash: lower, list: "local", role: .viewer, madeBy: nil, at: now, expiresAt: now.addingTimeInterval(600))
        #expect(try await accounts.useInvitation(tokenHash: lower, user: aoi.id, at: now)?.role == .admin)
        #expect(try await role() == .admin)
    }
}

extension InvitationDoorTests {
    @Test("one rule in bytes for a password: 50 family emoji are refused when the account is made, 1,024 bytes sign in")
    func passwordBoundInBytes() async throws {
        let (harness, _) = try await SignInAPITests.withAccounts([("owner", .admin)])
        let admin = try await SignInAPITests.signIn(harness, "owner", "owner-password")
        let family = String(repeating: "👨‍👩‍👧‍👦", count: 50)
        #expect(family.count == 50 && family.utf8.count == 1_250)
        let refused = await Self.accept(harness, try await Self.invite(harness, .viewer, by: admin), "emoji", family)
        #expect(refused.status == 400)
        #expect((try JSON(data: refused.body))["detail"]?.string?.contains("1250 bytes") == true)
        let longest = String(repeating: "猫", count: 341) + "a"
        #expect(longest.utf8.count == 1_024)
        let made = await Self.accept(harness, try await Self.invite(harness, .viewer, by: admin), "neko", longest)
        #expect(made.status == 201)
        #expect(try await SignInAPITests.signIn(harness, "neko", longest).response.status == 200)
    }
}
