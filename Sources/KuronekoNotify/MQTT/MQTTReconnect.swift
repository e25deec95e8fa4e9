/// How long the client waits before connecting again: 1 s after a connection that stayed up a while, else twice the
/// last wait, up to ``longest``. A connection the broker ends soon after it opens (an oversize packet it keeps
/// sending, a flood it answers by closing) counts as a failure, so the waits grow whatever the cause.
public struct MQTTReconnect: Sendable, Equatable {
    /// The longest wait between two attempts, in seconds.
    public static let longest = 30.0
    /// A connection that stayed up this long (seconds) was a good one: the next wait starts again from 1 s.
    public static let stableAfter = 60.0

    /// The wait before the next attempt, in seconds.
    public private(set) var pause = 1.0

    public init() {}

    /// After a connection ends: `lasted` is how long it was open (seconds), `nil` when it never opened. Returns
    /// the wait before the next attempt.
    public mutating func ended(lasted: Double?) -> Double {
        if let lasted, lasted >= Self.stableAfter { pause = 1 }
        defer { pause = min(pause * 2, Self.longest) }
        return pause
    }
}

/// What the log says of the broker: a reason for a lost or refused connection once, until it changes or a
/// connection stays up a while; that the bridge connected, the first time and after a failure that was said.
/// Events in, lines out; times are the caller's clock (seconds).
public struct MQTTConnectionNotes: Sendable, Equatable {
    private var lastReason: String?
    private var saidSinceConnected = true
    private var connectedAt: Double?

    public init() {}

    public mutating func connected(at now: Double) -> String? {
        connectedAt = now
        defer { saidSinceConnected = false }
        return saidSinceConnected ? "connected to the broker" : nil
    }

    public mutating func disconnected(_ reason: String, at now: Double) -> String? {
        if let connectedAt, now - connectedAt >= MQTTReconnect.stableAfter { lastReason = nil }
        connectedAt = nil
        guard reason != lastReason else { return nil }
        lastReason = reason
        saidSinceConnected = true
        return reason
    }
}
