import ArgumentParser
import Foundation
import Kuroneko
import KuronekoServer
import KuronekoStore

/// `kuroneko intake`: the tracking numbers in saved shipping mails (`.eml`, an mbox, or standard input), printed
/// and, with `--watch`, added to the watch list labelled with the shop and the order.
struct IntakeCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "intake", usage: "[options] FILE.eml|FILE.mbox|-",
        summary: "the tracking numbers in shipping mails, and watch them",
        description: [
            "Reads saved mail (one .eml, an mbox of many, or - for standard input; at most 512 MiB) and prints each "
                + "message's parcels: number, carrier, shop, the shop's order number and the evidence the number was "
                + "taken on: a carrier's tracking link carrying it (link), a tracking label before it such as "
                + "お問い合わせ伝票番号 or 送り状番号 (label), a carrier named near it (carrier_named), the carrier's own "
                + "mail (sender). Only numbers whose check digit holds are taken (10- and 13-digit ones, which have "
                + "none, only on a link or a label); order, member, item, telephone and postcode numbers, and digits "
                + "joined across separators, never are. A mail whose shop delivers itself (Amazon, "
                + "ヨドバシエクストリームサービス便) is said to have no trackable number. MIME parts, RFC 2047 headers, "
                + "base64 and quoted-printable, and ISO-2022-JP, Shift_JIS (CP932), EUC-JP and UTF-8 are read; HTML "
                + "is read as text with its links. With --watch every parcel is added to the local watch list, "
                + "labelled with the shop and the order, and checked once."
        ],
        examples: [
            ("kuroneko intake 発送のお知らせ.eml", "what one saved mail holds"),
            ("kuroneko intake ~/Mail/inbox.mbox --watch", "watch every parcel of a mailbox"),
        ])
    /// The largest file read.
    static let maximumBytes = 512 << 20

    @Flag(help: "one JSON object per parcel: number, carrier, shop, order, message_id, subject, evidence")
    var json = false
    @Flag(help: "add the parcels to the local watch list and check each once") var watch = false
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @OptionGroup var client: ClientFlags
    @Argument(help: .about("a saved mail (.eml), a mailbox (.mbox), or - for standard input", value: "FILE"))
    var files: [String] = []

    var listName: String? { list.list }
    var clientFlags: ClientFlags? { client }

    func run(on terminal: Terminal) async throws {
        guard files.count == 1, let path = files.first else {
            throw CommandFailure.usage(
                "intake: expected one FILE (.eml, .mbox, or - for standard input), got \(files.count)")
        }
        let file = try Self.read(path)
        let (messages, more) = Mailbox.split(file)
        if more {
            terminal.printError(
                "kuroneko: the mailbox holds more than \(Mailbox.maximumMessages) messages; only the first "
                    + "\(Mailbox.maximumMessages) are read (split it and read the rest on its own)")
        }
        // Read off the cooperative pool, as the server does.
        let mails = try await MailReadingLanes(lanes: 1, waiting: 0).run { messages.map { ShippingMailReader.read($0) } }
        var parcels: [(FoundParcel, ShippingMail)] = []
        for mail in mails {
            parcels += mail.parcels.map { ($0, mail) }
            if json {
                for parcel in mail.parcels { terminal.print(Self.json(parcel, of: mail)) }
            } else {
                terminal.print(Self.lines(for: mail).joined(separator: "\n"))
            }
        }
        terminal.printError("kuroneko: read \(mails.count) message\(mails.count == 1 ? "" : "s"), found \(parcels.count) parcel\(parcels.count == 1 ? "" : "s")")
        let crowded = mails.filter(\.moreThanLimit).count
        if crowded > 0 {
            terminal.printError(
                "kuroneko: \(crowded) message\(crowded == 1 ? "" : "s") held more than \(MailLimits().parcels) parcels; "
                    + "only the first \(MailLimits().parcels) of each were taken")
        }
        guard watch, !parcels.isEmpty else { return }
        try await watchParcels(parcels, on: terminal)
    }

    /// The file's bytes (or standard input's), at most ``maximumBytes``.
    static func read(_ path: String) throws(CommandFailure) -> Data {
        if path == "-" {
            let data = FileHandle.standardInput.readData(ofLength: maximumBytes + 1)
            guard data.count <= maximumBytes else {
                throw .usage("intake: standard input holds more than \(maximumBytes >> 20) MiB; split the mailbox")
            }
            return data
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes else {
            throw .usage("intake: \"\(path.prefix(200))\" does not exist; expected a saved mail (.eml) or an mbox")
        }
        guard (attributes[.size] as? Int ?? 0) <= maximumBytes else {
            throw .usage("intake: \"\(path.prefix(200))\" is larger than \(maximumBytes >> 20) MiB; split the mailbox")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("intake: cannot read \"\(path.prefix(200))\": \((error as NSError).localizedDescription)")
        }
    }

    /// One line for the message, then one per parcel (or why there is none).
    static func lines(for mail: ShippingMail) -> [String] {
        // What the mail's sender wrote is shown with its control and format characters escaped, so none drives
        // the terminal.
        let subject = mail.subject.isEmpty ? "(no subject)" : String(mail.subject.prefix(80)).visibleInOneLine
        var lines = ["\(subject)  <\((mail.messageID ?? "no Message-ID").prefix(200).visibleInOneLine)>"]
        if let problem = mail.problem { return lines + ["  not read: \(problem)"] }
        for parcel in mail.parcels {
            lines.append(
                "  \(parcel.number.formatted)  \(parcel.carrier?.rawValue ?? "-")  \(parcel.shop?.visibleInOneLine ?? "-")  "
                    + "\(parcel.order?.visibleInOneLine ?? "-")  (\(parcel.evidence.map(\.rawValue).joined(separator: ",")))")
        }
        if mail.moreThanLimit {
            lines.append("  more than \(mail.parcels.count) parcels in one mail: only the first \(mail.parcels.count) are taken")
        }
        if mail.parcels.isEmpty {
            lines.append(
                mail.deliveredWithoutNumber.map { "  no trackable number: \($0.visibleInOneLine) delivers it itself" }
                    ?? "  no tracking number found")
        }
        return lines
    }

    /// `{"number", "carrier", "shop", "order", "message_id", "subject", "evidence"}`.
    static func json(_ parcel: FoundParcel, of mail: ShippingMail) -> String {
        let object: [String: Any] = [
            "number": parcel.number.digits, "carrier": parcel.carrier?.rawValue ?? NSNull(),
            "shop": parcel.shop ?? NSNull(), "order": parcel.order ?? NSNull(), "message_id": mail.messageID ?? NSNull(),
            "subject": mail.subject, "evidence": parcel.evidence.map(\.rawValue),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Adds every parcel to the local watch list and checks each once, as `import --watch` does.
    private func watchParcels(_ parcels: [(FoundParcel, ShippingMail)], on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let owner = try await session.owner()
        var created = 0
        var carriers: [TrackingNumber: Carrier] = [:]
        for (parcel, _) in parcels {
            do {
                let added = try await session.store.add(
                    parcel.number, carrier: parcel.carrier, label: WatchRoutes.mailLabel(parcel),
                    record: WatchRoutes.mailRecord(parcel), owner: owner, webhook: nil, now: Date())
                if added.created { created += 1 }
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("intake: \(parcel.number.formatted): \(error)")
            }
            if let carrier = parcel.carrier { carriers[parcel.number] = carrier }
        }
        let numbers = parcels.map(\.0.number)
        let failed = try await session.check(numbers, carriers: carriers, quiet: true, printChanges: false)
        let distinct = Set(numbers).count
        terminal.printError(
            "kuroneko: watched \(created) new of \(distinct), \(distinct - failed) checked"
                + (failed > 0 ? ", \(failed) could not be checked" : ""))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}
