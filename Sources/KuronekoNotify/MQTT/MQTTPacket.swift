import Foundation

/// One message on an MQTT broker: a topic, its bytes, and whether the broker keeps it for later subscribers.
/// An empty retained payload deletes what the broker kept on the topic.
public struct MQTTMessage: Sendable, Hashable {
    public let topic: String
    public let payload: Data
    public let retain: Bool

    public init(topic: String, payload: Data, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }

    public init(topic: String, text: String, retain: Bool) {
        self.init(topic: topic, payload: Data(text.utf8), retain: retain)
    }
}

/// The MQTT 3.1.1 packets a client sends and reads (OASIS standard, 2014), as bytes. Pure: no I/O.
enum MQTTPacket: Sendable, Equatable {
    case connect(clientID: String, keepAlive: UInt16, user: String?, password: String?, will: MQTTMessage?)
    /// The broker's answer to CONNECT: 0 accepted, 1–5 refused (``MQTTPacket/refusal(_:)``).
    case connectAcknowledged(returnCode: UInt8)
    /// At most once (QoS 0) when `packetID` is `nil`, else at least once (QoS 1).
    case publish(MQTTMessage, packetID: UInt16?)
    case publishAcknowledged(packetID: UInt16)
    /// Topic filters asked at QoS 0.
    case subscribe(packetID: UInt16, filters: [String])
    case subscribeAcknowledged(packetID: UInt16, returnCodes: [UInt8])
    case pingRequest
    case pingResponse
    case disconnect

    /// The longest topic the protocol can carry.
    static let topicLimit = 65_535

    /// The bytes on the wire.
    var encoded: Data {
        var body = Data()
        let header: UInt8
        switch self {
        case .connect(let clientID, let keepAlive, let user, let password, let will):
            header = 0x10
            body.appendString("MQTT")
            body.append(4)  // protocol level 3.1.1
            var flags: UInt8 = 0x02  // clean session: the broker keeps nothing of an earlier connection
            if let will { flags |= 0x04 | 0x08 | (will.retain ? 0x20 : 0) }  // will at QoS 1
            if password != nil { flags |= 0x40 }
            if user != nil { flags |= 0x80 }
            body.append(flags)
            body.appendUInt16(keepAlive)
            body.appendString(clientID)
            if let will {
                body.appendString(will.topic)
                body.appendUInt16(UInt16(clamping: will.payload.count))
                body.append(will.payload.prefix(Int(UInt16.max)))
            }
            if let user { body.appendString(user) }
            if let password { body.appendString(password) }
        case .connectAcknowledged(let code):
            header = 0x20
            body.append(contentsOf: [0, code])
        case .publish(let message, let packetID):
            header = 0x30 | (packetID == nil ? 0 : 0x02) | (message.retain ? 0x01 : 0)
            body.appendString(message.topic)
            if let packetID { body.appendUInt16(packetID) }
            body.append(message.payload)
        case .publishAcknowledged(let packetID):
            header = 0x40
            body.appendUInt16(packetID)
        case .subscribe(let packetID, let filters):
            header = 0x82
            body.appendUInt16(packetID)
            for filter in filters {
                body.appendString(filter)
                body.append(0)
            }
        case .subscribeAcknowledged(let packetID, let codes):
            header = 0x90
            body.appendUInt16(packetID)
            body.append(contentsOf: codes)
        case .pingRequest: header = 0xC0
        case .pingResponse: header = 0xD0
        case .disconnect: header = 0xE0
        }
        var out = Data([header])
        var length = body.count
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            out.append(byte)
        } while length > 0
        out.append(body)
        return out
    }

    /// Why a broker refused a connection, by CONNACK's return code.
    static func refusal(_ code: UInt8) -> String {
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

/// Why bytes from a broker are not MQTT: the connection cannot go on.
struct MQTTProtocolError: Error, Equatable, CustomStringConvertible {
    let description: String
}

/// Cuts the bytes a broker sends into packets. A packet longer than `maximumPacket`, a length written in more
/// than four bytes or a packet a client never receives is a protocol error: the caller drops the connection.
struct MQTTPacketReader {
    private var buffer = Data()
    let maximumPacket: Int

    init(maximumPacket: Int) {
        self.maximumPacket = maximumPacket
    }

    mutating func feed(_ bytes: Data) {
        buffer.append(bytes)
    }

    /// The next whole packet, or `nil` until more bytes come.
    mutating func next() throws(MQTTProtocolError) -> MQTTPacket? {
        guard let first = buffer.first else { return nil }
        var length = 0
        var multiplier = 1
        var index = buffer.startIndex + 1
        while true {
            guard index < buffer.endIndex else { return nil }
            guard index - buffer.startIndex <= 4 else { throw MQTTProtocolError(description: "a packet length longer than four bytes") }
            let byte = buffer[index]
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0 { break }
        }
        guard length <= maximumPacket else {
            throw MQTTProtocolError(description: "a packet of \(length) bytes (at most \(maximumPacket) are read)")
        }
        guard buffer.endIndex - index >= length else { return nil }
        let body = Data(buffer[index..<(index + length)])
        buffer.removeSubrange(buffer.startIndex..<(index + length))
        return try Self.packet(type: first >> 4, flags: first & 0x0F, body: body)
    }

    private static func packet(type: UInt8, flags: UInt8, body: Data) throws(MQTTProtocolError) -> MQTTPacket {
        let bytes = [UInt8](body)
        func uint16(_ at: Int) throws(MQTTProtocolError) -> UInt16 {
            guard bytes.count >= at + 2 else { throw MQTTProtocolError(description: "a packet cut short") }
            return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
        }
        switch type {
        case 2:
            guard bytes.count == 2 else { throw MQTTProtocolError(description: "a CONNACK of \(bytes.count) bytes") }
            return .connectAcknowledged(returnCode: bytes[1])
        case 3:
            let topicLength = Int(try uint16(0))
            guard bytes.count >= 2 + topicLength, let topic = String(bytes: bytes[2..<(2 + topicLength)], encoding: .utf8)
            else { throw MQTTProtocolError(description: "a PUBLISH whose topic is not UTF-8") }
            let qos = (flags >> 1) & 0x03
            guard qos < 3 else { throw MQTTProtocolError(description: "a PUBLISH at QoS 3") }
            var offset = 2 + topicLength
            var packetID: UInt16?
            if qos > 0 {
                packetID = try uint16(offset)
                offset += 2
            }
            let message = MQTTMessage(topic: topic, payload: Data(bytes[offset...]), retain: flags & 0x01 != 0)
            return .publish(message, packetID: packetID)
        case 4: return .publishAcknowledged(packetID: try uint16(0))
        case 9: return .subscribeAcknowledged(packetID: try uint16(0), returnCodes: Array(bytes.dropFirst(2)))
        case 13: return .pingResponse
        default: throw MQTTProtocolError(description: "a packet of type \(type), which a broker does not send")
        }
    }
}

extension Data {
    fileprivate mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    /// A UTF-8 string with its two-byte length (a longer one is cut at the limit; topics are checked before).
    fileprivate mutating func appendString(_ text: String) {
        let bytes = Data(text.utf8).prefix(MQTTPacket.topicLimit)
        appendUInt16(UInt16(bytes.count))
        append(bytes)
    }
}
