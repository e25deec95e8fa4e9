import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// `POST /v1/watches/from-mail`: a saved shipping mail (the `.eml` a phone or mail program saves) in the body;
/// every parcel it holds is watched for the caller, labelled with the shop and the order, the order kept as the
/// record's reference. `POST /v1/watches/from-text`: pasted text (a line of a mail, a chat message), read by the
/// same rules (a number is taken only on evidence: a tracking label, a carrier named near it, a carrier's link).
extension WatchRoutes {
    /// The route's path, which takes a larger body than the others.
    public static let mailPath = "/v1/watches/from-mail"
    /// The largest mail taken.
    public static let mailBytes = 4 << 20
    public static let textPath = "/v1/watches/from-text"
    /// The most pasted text taken (the server's usual body limit).
    public static let textBytes = 64 << 10

    func registerMail(into router: inout Router) {
        let routes = self
        router.add("POST", Self.mailPath, declares: RouteChange(needs: .staff, audit: AuditAction.addedFromMail)) { request, _ in
            await routes.answer(request) { try await routes.addFromMail(request) }
        }
        router.add("POST", Self.textPath, declares: RouteChange(needs: .staff, audit: AuditAction.addedFromText)) { request, _ in
            await routes.answer(request) { try await routes.addFromText(request) }
        }
    }

    /// → 200, as `from-mail` answers (no `message_id`, `subject` empty): the pasted text's parcels.
    func addFromText(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard !request.body.isEmpty, request.body.count <= Self.textBytes else {
            throw RouteProblem.bad("send the pasted text itself (UTF-8, 1 to \(Self.textBytes) bytes)")
        }
        guard let text = String(data: request.body, encoding: .utf8) else {
            throw RouteProblem.bad("the text is not UTF-8; send the pasted text as text/plain; charset=utf-8")
        }
        // Read as the body of a plain-text mail, by the mail reader's rules.
        var message = Data("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n".utf8)
        message.append(Data(text.utf8))
        let mail: ShippingMail
        do {
            mail = try await mailLanes.run { [message] in ShippingMailReader.read(message) }
        } catch {
            throw RouteProblem.busy("\(error)")
        }
        return try await addParcels(of: mail, owner: Self.owner(of: request), source: nil)
    }

    /// → 200 `{"message_id", "subject", "no_trackable", "more_parcels", "parcels": [{"number", "carrier", "shop", "order",
    /// "evidence", "status", "watch" | "detail", "reason"}]}`: 201 added, 200 already watched, else the refusal.
    func addFromMail(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard !request.body.isEmpty else {
            throw RouteProblem.bad("the body is empty; send the saved mail (.eml) itself, as message/rfc822")
        }
        guard request.body.count <= Self.mailBytes else {
            throw RouteProblem.bad("the mail is \(request.body.count) bytes; at most \(Self.mailBytes) are read")
        }
        // One message: the first of an mbox.
        var limits = MailLimits()
        limits.messageBytes = Self.mailBytes
        let body = request.body
        let mail: ShippingMail
        do {
            mail = try await mailLanes.run { [limits] in ShippingMailReader.read(Mailbox.firstMessage(in: body), limits: limits) }
        } catch {
            throw RouteProblem.busy("\(error)")
        }
        let source = try JSONSerialization.data(
            withJSONObject: WatchSource.object(of: mail, mailbox: nil), options: [.sortedKeys])
        return try await addParcels(of: mail, owner: Self.owner(of: request), source: source)
    }

    /// Watches each parcel of `mail` for `owner` (with the mail it came from, when it came from one); the answer
    /// says what came of each.
    private func addParcels(of mail: ShippingMail, owner: WatchOwner, source: Data?) async throws -> HTTPResponse {
        var parcels: [[String: Any]] = []
        for parcel in mail.parcels.prefix(Self.bulkLimit) {
            var entry: [String: Any] = [
                "number": parcel.number.digits, "carrier": parcel.carrier?.rawValue ?? NSNull(),
                "shop": parcel.shop ?? NSNull(), "order": parcel.order ?? NSNull(),
                "evidence": parcel.evidence.map(\.rawValue),
            ]
            do {
                var asked = AddWatchRequest(
                    number: parcel.number.digits, carrier: parcel.carrier, label: Self.mailLabel(parcel))
                asked.record = Self.mailRecord(parcel)
                let added = try await addOne(asked, owner: owner)
                if let source { try await store.setWatchSource(parcel.number, owner: owner, source: source) }
                let watch = try await store.watch(parcel.number, owner: owner).map { Self.json($0) } ?? added.body
                entry["status"] = added.status
                entry["watch"] = try JSONSerialization.jsonObject(with: watch)
            } catch let error where error is RouteProblem || error is WatchStoreError {
                let problem = RouteProblem(error, requestID: nil)
                entry["status"] = problem.status
                entry["detail"] = problem.detail
                entry["reason"] = problem.reason ?? ""
            }
            parcels.append(entry)
        }
        let object: [String: Any] = [
            "message_id": mail.messageID.map { String($0.prefix(300)) } ?? NSNull(),
            "subject": String(mail.subject.prefix(300)), "no_trackable": mail.deliveredWithoutNumber ?? NSNull(),
            "more_parcels": mail.moreThanLimit, "parcels": parcels,
        ]
        var response = HTTPResponse.jsonData(
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The order number the mail gives, as the record's reference (when it is one a record can keep).
    public static func mailRecord(_ parcel: FoundParcel) -> ParcelRecordChange? {
        guard let order = parcel.order, let change = try? ParcelRecordChange(json: ["reference": String(order.prefix(100))])
        else { return nil }
        return change
    }

    /// The shop and what was ordered (else the order number, which the record keeps too), as a label (control
    /// characters made spaces, at most 60 characters).
    public static func mailLabel(_ parcel: FoundParcel) -> String? {
        let text = [parcel.shop, parcel.product ?? parcel.order].compactMap { $0 }.joined(separator: " ")
        let plain = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.properties.generalCategory {
                    case .control, .lineSeparator, .paragraphSeparator, .format: " "
                    default: scalar
                    }
                }))
        return try? WatchLabel.validated(String(plain.prefix(60)))
    }
}

extension AddWatchRequest {
    init(number: String, carrier: Carrier?, label: String?) {
        self.number = number
        self.carrier = carrier
        self.label = label
        webhookURL = nil
    }
}

/// The mail a watch came from, as the API shows it.
enum WatchSource {
    static func object(of mail: ShippingMail, mailbox: String?) -> [String: Any] {
        [
            "from": mail.from.map { String($0.prefix(200)) } ?? NSNull(), "subject": String(mail.subject.prefix(200)),
            "date": mail.date.map { String($0.prefix(100)) } ?? NSNull(), "mailbox": mailbox ?? NSNull(),
        ]
    }
}
