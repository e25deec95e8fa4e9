import KuronekoStore

/// The stable codes in a watch-list refusal's `reason` (an extension member of the problem document): a
/// client matches on these, never on `detail`, whose words may change.
public enum ProblemReason: String, Sendable, CaseIterable {
    /// A body or a parameter that is not what the route takes (the detail says what would be).
    case invalidRequest = "invalid_request"
    case invalidNumber = "invalid_number"
    case invalidLabel = "invalid_label"
    /// A parcel record part that is not what it should be (the detail names the part).
    case invalidRecord = "invalid_record"
    case invalidWebhook = "invalid_webhook"
    /// Customer-notice settings that are not what they should be (the detail names the setting).
    case invalidNoticeSettings = "invalid_notice_settings"
    /// A signed-in browser's session has ended (signed out, expired, no longer a member): sign in again (401).
    case signedOut = "signed_out"
    /// A change from a signed-in browser without its CSRF token (403).
    case csrf
    /// A viewer of the list asked to change it (403).
    case viewerOnly = "viewer_only"
    /// An account that is not a member of the list asked for (or of any yet): an admin invites it (403).
    case notAMember = "not_a_member"
    /// A name and password that do not match an account (401; which of the two is not said).
    case badCredentials = "bad_credentials"
    /// A passkey's answer that does not verify: another site, an old challenge, a bad signature, a copied key (400).
    case passkeyRefused = "passkey_refused"
    /// An invitation used already, expired, or unknown (410).
    case invitationUsed = "invitation_used"
    /// Too many sign-in attempts: wait `Retry-After` seconds (429).
    case tooManyAttempts = "too_many_attempts"
    /// Customer notices asked of a server without `--smtp-url` and `--public-url`.
    case noticesUnavailable = "notices_unavailable"
    /// A webhook or channel URL that leads to a loopback or private address, on a server that refuses them.
    case privateAddress = "private_address"
    /// A kind of channel this server cannot send (e-mail without SMTP, Web Push without a VAPID key).
    case channelUnavailable = "channel_unavailable"
    /// The number is not on the owner's watch list.
    case notWatched = "not_watched"
    case watchLimit = "watch_limit"
    case channelLimit = "channel_limit"
    /// The owner follows the number at another carrier already.
    case otherCarrier = "other_carrier"
    /// Another request removed the number while this one added it.
    case removedWhileAdding = "removed_while_adding"
    case duplicateKeyName = "duplicate_key_name"
    /// A changes cursor that cannot be followed (too old, or not this list's): read the list again (410).
    case cursorExpired = "cursor_expired"
    case unsupported
    /// Too much of one kind of work at once (503 with `Retry-After`).
    case busy
    /// The database could not be read or written (503 with `Retry-After`).
    case storeUnavailable = "store_unavailable"
    /// A failure nobody foresaw (500; the log has it under the request's id).
    case internalError = "internal_error"

    init(_ error: WatchStoreError) {
        switch error {
        case .limitReached: self = .watchLimit
        case .channelLimitReached: self = .channelLimit
        case .watchedAtAnotherCarrier: self = .otherCarrier
        case .removedWhileAdding: self = .removedWhileAdding
        case .duplicateKeyName: self = .duplicateKeyName
        case .backupUnsupported: self = .unsupported
        case .changesForgotten, .changesAhead: self = .cursorExpired
        }
    }
}
