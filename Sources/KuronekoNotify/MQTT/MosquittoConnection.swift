import CCrypto
import CMosquitto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// libmosquitto's process-wide set-up, done once before the first handle.
private let mosquittoLibrary: Int32 = mosquitto_lib_init()

/// One connection to a broker through libmosquitto: the only owner of its `struct mosquitto` handle, used from one
/// thread (the client's), never shared. It connects without blocking (``MQTTClient`` polls its socket), says what
/// the broker answered, and ends with one line saying why. Messages the callbacks hand over wait in ``received``
/// until the owner takes them.
final class MosquittoConnection {
    /// Why the connection cannot go on, once known (refused, lost, a packet over the limit, a TLS failure).
    private(set) var ended: String?
    /// Whether the broker accepted CONNECT.
    private(set) var accepted = false
    private var received: [MQTTMessage] = []
    private var lastError: String?
    private let handle: OpaquePointer
    private let settings: MQTTSettings
    private let subscriptions: [String]
    private let maximumPayload: Int

    /// - Throws: one line when libmosquitto refuses the settings or the connection cannot even start.
    init(settings: MQTTSettings, subscriptions: [String], will: MQTTMessage?, maximumPayload: Int) throws(ConnectionError) {
        _ = mosquittoLibrary
        guard let handle = mosquitto_new(settings.clientID, true, nil) else {
            throw ConnectionError(description: "\(settings): libmosquitto could not make a client")
        }
        self.handle = handle
        self.settings = settings
        self.subscriptions = subscriptions
        self.maximumPayload = maximumPayload
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        mosquitto_connect_callback_set(handle) { _, context, code in
            MosquittoConnection.connection(context)?.answered(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            MosquittoConnection.connection(context)?.lost(code)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let message else { return }
            MosquittoConnection.connection(context)?.heard(message.pointee)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            MosquittoConnection.connection(context)?.lastError = String(String(cString: text).prefix(300))
        }
        if let user = settings.user {
            try check(mosquitto_username_pw_set(handle, user, settings.password), "the user name or password")
        }
        if let will {
            let code = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, 1, will.retain)
            }
            try check(code, "the will")
        }
        if settings.tls {
            if let caFile = settings.caFile {
                try check(mosquitto_tls_set(handle, caFile, nil, nil, nil, nil), "the certificate authorities \(caFile)")
            } else {
                try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "the system's certificate authorities")
            }
        }
        let code = mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepAlive))
        let failure = errno
        if code != MOSQ_ERR_SUCCESS.rawValue { throw ConnectionError(description: describe(code, errno: failure)) }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private static func connection(_ context: UnsafeMutableRawPointer?) -> MosquittoConnection? {
        context.map { Unmanaged<MosquittoConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ code: Int32, _ what: String) throws(ConnectionError) {
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw ConnectionError(description: "\(settings): libmosquitto refused \(what): \(String(cString: mosquitto_strerror(code)))")
    }

    // MARK: Callbacks (on the owner's thread, inside the loop calls)

    private func answered(_ code: Int32) {
        guard code == 0 else {
            end("\(settings): the broker refused the connection: \(Self.refusal(code))")
            return
        }
        accepted = true
        for filter in subscriptions { _ = mosquitto_subscribe(handle, nil, filter, 0) }
    }

    private func lost(_ code: Int32) {
        let failure = errno
        if code != MOSQ_ERR_SUCCESS.rawValue { end(describe(code, errno: failure)) }
    }

    private func heard(_ message: mosquitto_message) {
        let count = Int(max(0, message.payloadlen))
        guard count <= maximumPayload else {
            end("\(settings): the broker sent a message larger than \(maximumPayload >> 10) KiB")
            return
        }
        guard let topic = message.topic else { return }
        let payload = message.payload.map { Data(bytes: $0, count: count) } ?? Data()
        received.append(MQTTMessage(topic: String(cString: topic), payload: payload, retain: message.retain))
    }

    /// Ends with `reason` (a line naming the broker), unless it has ended already.
    private func end(_ reason: String) {
        if ended == nil { ended = reason }
    }

    // MARK: The owner's calls

    /// The socket to wait on, or -1 when there is none (the connection is closed).
    var socket: Int32 { mosquitto_socket(handle) }
    /// Whether libmosquitto has bytes to write (wait for the socket to take them).
    var wantsWrite: Bool { mosquitto_want_write(handle) }
    /// Whether TLS holds bytes already read from the socket that poll(2) cannot see.
    var hasBufferedInput: Bool {
        guard settings.tls, let ssl = mosquitto_ssl_get(handle) else { return false }
        return SSL_pending(OpaquePointer(ssl)) > 0
    }

    /// Reads what the socket has (a bounded number of packets), writes what waits, and keeps the connection
    /// alive (pings); any failure ends it. - Returns: the messages heard.
    func turn() -> [MQTTMessage] {
        for step in [{ mosquitto_loop_read(self.handle, 64) }, { mosquitto_loop_write(self.handle, 64) }, { mosquitto_loop_misc(self.handle) }] {
            let code = step()
            let failure = errno
            if code != MOSQ_ERR_SUCCESS.rawValue { end(describe(code, errno: failure)) }
            if ended != nil { break }
        }
        defer { received = [] }
        return received
    }

    /// Queues a message at QoS 0 (written by the next turns); `false` when libmosquitto refuses it.
    @discardableResult
    func publish(_ message: MQTTMessage) -> Bool {
        let code = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, nil, message.topic, Int32(bytes.count), bytes.baseAddress, 0, message.retain)
        }
        return code == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Queues DISCONNECT (after everything published), so the broker does not send the will.
    func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// One line for a libmosquitto result code, naming the broker.
    private func describe(_ code: Int32, errno failure: Int32) -> String {
        let what: String
        switch mosq_err_t(rawValue: code) {
        case MOSQ_ERR_ERRNO where failure == ECONNREFUSED:
            return "\(settings.host):\(settings.port) refused the connection (is the server running there?)"
        case MOSQ_ERR_ERRNO: what = String(cString: strerror(failure))
        case MOSQ_ERR_KEEPALIVE: what = "no answer to a ping for \(settings.keepAlive) s"
        case MOSQ_ERR_CONN_LOST: what = "the broker closed the connection"
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE:
            let detail = lastError ?? "the TLS handshake failed"
            what = detail.contains("certificate verify failed") ? "the server's certificate is refused: \(detail)" : detail
        case MOSQ_ERR_EAI: what = "the host name could not be resolved"
        default: what = String(cString: mosquitto_strerror(code))
        }
        return "\(settings): \(what)"
    }

    /// What a CONNACK's return code means (MQTT 3.1.1, 3.2.2.3).
    static func refusal(_ code: Int32) -> String {
        switch code {
        case 1: "it does not speak MQTT 3.1.1"
        case 2: "it refused the client id"
        case 3: "it is unavailable"
        case 4: "the user name or password is wrong"
        case 5: "this client is not authorised"
        default: "return code \(code)"
        }
    }
}
