import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore

/// `/v1/notices/…` and `/v1/watches/{number}/notices`: a shop's customer notices (its settings, a preview that
/// is the message sent, each parcel's notices, a count per day); and `/notices/stop`, the recipient's stop
/// link, which needs no account: a GET shows one button (a mail scanner opening the link stops nothing), a POST
/// (the button, or a mail program's one-click, RFC 8058) stops at once.
struct NoticeRoutes: Sendable {
    let watches: WatchRoutes
    /// The SMTP server, the public URL and the stop key; `nil` on a server that cannot send them.
    let mail: CustomerNoticeMail?

    /// The longest count per day asked for.
    static let maximumDays = 90

    func register(into router: inout Router) {
        let routes = self
        router.add("GET", "/v1/notices/settings") { request, _ in
            await routes.watches.answer(request) {
                .jsonData(routes.settingsObject(try await routes.settings(of: WatchRoutes.owner(of: request))))
            }
        }
        router.add("PUT", "/v1/notices/settings", declares: RouteChange(needs: .admin, audit: AuditAction.noticeSettings)) { request, _ in
            await routes.watches.answer(request) { try await routes.save(request) }
        }
        router.add("POST", "/v1/notices/preview", declares: RouteChange(needs: .staff, audit: .none("a preview sends nothing"))) { request, _ in
            await routes.watches.answer(request) { try await routes.preview(request) }
        }
        router.add("GET", "/v1/notices/days") { request, _ in
            await routes.watches.answer(request) { try await routes.days(request) }
        }
        router.add("GET", "/v1/watches/{number}/notices") { request, parameters in
            await routes.watches.answer(request) {
                let watch = try await routes.watches.lookUp(request, parameters)
                let store = routes.watches.store
                let notices = try await store.customerNotices(watchID: watch.id, owner: watch.owner)
                return .jsonData(WatchRoutes.object(["notices": notices.map(Self.object)]))
            }
        }
        router.add("GET", "/notices/stop") { request, _ in routes.stopPage(request) }
        router.add("POST", "/notices/stop", declares: RouteChange(needs: .anyone, audit: .none("a customer's stop is kept with the notices, not a change by the list's people"))) { request, _ in await routes.stop(request) }
    }

    func settings(of owner: WatchOwner) async throws -> NoticeSettings {
        NoticeSettings.stored(try await watches.store.noticeSettingsJSON(owner: owner))
    }

    func settingsObject(_ settings: NoticeSettings) -> Data {
        var object = settings.json
        object["can_send"] = mail != nil
        object["fields"] = NoticeTemplate.Field.allCases.map(\.rawValue)
        object["standard_templates"] = Dictionary(
            uniqueKeysWithValues: [AnnouncementLanguage.japanese, .english].map { language in
                let template = NoticeTemplate.standard(language)
                return (language.rawValue, ["subject": template.subject, "body": template.body])
            })
        return WatchRoutes.object(object)
    }

    private func save(_ request: HTTPRequest) async throws -> HTTPResponse {
        // A list's settings are its admins' (a key or the open API keeps its own).
        if !SessionGate.actsAsAdmin(request), let role = SessionGate.role(of: request)?.rawValue {
            throw RouteProblem(
                status: 403, title: "Forbidden", reason: .viewerOnly,
                detail: "only an admin of the list changes its customer-notice settings; you are \(role)")
        }
        let settings: NoticeSettings
        do {
            settings = try NoticeSettings.parse(request.body)
        } catch {
            throw RouteProblem.bad(error.description, reason: .invalidNoticeSettings)
        }
        if settings.enabled {
            guard mail != nil else {
                throw RouteProblem(
                    status: 409, title: "Conflict", reason: .noticesUnavailable,
                    detail: "customer notices need the server started with --smtp-url, --smtp-from and --public-url "
                        + "(the stop link each notice carries); save them with enabled false until then")
            }
            let missing = settings.missingForSending
            guard missing.isEmpty else {
                throw RouteProblem.bad(
                    "\(missing.joined(separator: ", ")) must be given to send notices: a mail to customers names the "
                        + "shop, its address and a contact", reason: .invalidNoticeSettings)
            }
        }
        let (store, owner) = (watches.store, WatchRoutes.owner(of: request))
        try await store.saveNoticeSettings(settings.data, owner: owner, at: watches.clock.now)
        return .jsonData(settingsObject(settings))
    }

    /// `{"number", "milestone", "language"?, "charset"?}`: the notice as it would be sent now, or, once queued, as
    /// it is sent (the same Message-ID and bytes).
    private func preview(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
            throw RouteProblem.bad("the body is not a JSON object {\"number\", \"milestone\", \"language\", \"charset\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !["number", "milestone", "language", "charset"].contains($0) }) {
            throw RouteProblem.bad("\"\(unknown.prefix(40))\" is not a field of a preview; expected number, milestone, language, charset")
        }
        guard let numberText = object["number"] as? String else {
            throw RouteProblem.bad("number is missing or not text; expected the watched parcel's number")
        }
        guard let milestoneText = object["milestone"] as? String, let milestone = CustomerMilestone(rawValue: milestoneText)
        else {
            throw RouteProblem.bad(
                "milestone is missing or unknown; expected one of "
                    + CustomerMilestone.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let watch = try await watches.lookUp(request, ["number": numberText])
        var settings = try await settings(of: watch.owner)
        if let value = object["language"] {
            guard let text = value as? String, let language = AnnouncementLanguage(rawValue: text) else {
                throw RouteProblem.bad("language is not \"ja\" or \"en\"")
            }
            settings.language = language
        }
        if let value = object["charset"] {
            guard let text = (value as? String)?.lowercased(), let charset = MessageCharset(rawValue: text) else {
                throw RouteProblem.bad("charset is not \"iso-2022-jp\" or \"utf-8\"")
            }
            settings.charset = charset
        }
        guard let (notice, queued) = try await CustomerNoticeMail.notice(
            for: watch, milestone: milestone, store: watches.store, now: watches.clock.now)
        else {
            throw RouteProblem(
                status: 409, title: "Conflict", reason: .invalidRequest,
                detail: "\(watch.number.formatted) has no answer from its carrier yet; preview it once it is checked")
        }
        let sending = mail ?? Self.previewMail
        guard let rendered = sending.render(notice, settings: settings) else {
            throw RouteProblem.bad("the parcel's recipient address or answer cannot be read for a notice")
        }
        return .jsonData(
            WatchRoutes.object([
                "queued": queued, "milestone": milestone.rawValue, "to": notice.address,
                "subject": rendered.subject, "text": rendered.text, "html": rendered.html,
                "charset": rendered.charset.rawValue, "message_id": rendered.message.messageID,
                "message": String(decoding: rendered.message.rendered, as: UTF8.self),
            ]))
    }

    /// Where a preview comes from on a server that sends no mail: nothing is sent through it.
    static let previewMail = CustomerNoticeMail(
        sender: UnsentMail(), from: (try? MailAddress(parsing: "notices@example.invalid"))!,
        publicURL: URL(string: "https://kuroneko.example.invalid")!, stopKey: "preview")

    private func days(_ request: HTTPRequest) async throws -> HTTPResponse {
        var days = 30
        if let text = request.queryValue("days") {
            guard let value = Int(text), (1...Self.maximumDays).contains(value) else {
                throw RouteProblem.bad("days \"\(text.prefix(20))\" is not a whole number from 1 to \(Self.maximumDays)")
            }
            days = value
        }
        let (store, owner, now) = (watches.store, WatchRoutes.owner(of: request), watches.clock.now)
        let rows = try await store.customerNoticeDays(owner: owner, since: now.addingTimeInterval(-Double(days) * 86_400))
        var byDay: [String: [String: Int]] = [:]
        for row in rows { byDay[row.day, default: [:]][row.state] = row.count }
        let items = byDay.keys.sorted().map { day -> [String: Any] in
            var counts: [String: Any] = ["day": day]
            for state in ["sent", "pending", "refused", "stopped", "failed", "skipped"] {
                counts[state] = byDay[day]?[state] ?? 0
            }
            return counts
        }
        return .jsonData(WatchRoutes.object(["days": items]))
    }

    static func object(_ notice: CustomerNoticeRecord) -> [String: Any] {
        [
            "milestone": notice.milestone.rawValue, "state": notice.state, "to": notice.address,
            "queued_at": JapanDateTime(notice.createdAt).iso8601,
            "finished_at": notice.finishedAt.map { JapanDateTime($0).iso8601 } ?? NSNull(),
            "attempts": notice.attempts, "status": notice.status ?? NSNull(), "error": notice.error ?? NSNull(),
        ]
    }
}

/// A sender that sends nothing: previews on a server without SMTP, and `kuroneko notices preview`.
public struct UnsentMail: MailSender {
    public init() {}

    public func send(_ message: MailMessage) async -> DeliveryOutcome {
        DeliveryOutcome(status: nil, error: "this server sends no mail")
    }
}
