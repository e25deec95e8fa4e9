import Foundation
import Testing
@testable import KuronekoNotify

/// The MQTT 3.1.1 packets of the project's own client, byte for byte as the standard lays them out, and the
/// reader's answer to whatever a broker (or an impostor) sends: whole packets, packets cut anywhere, and a
/// protocol error for what no broker sends, never a crash or an unbounded buffer.
@Suite("MQTT packets")
struct MQTTPacketTests {
    @Test func connectAsTheStandardLaysItOut() {
        let will = MQTTMessage(topic: "k/s", text: "offline", retain: true)
        let bytes = [UInt8](MQTTPacket.connect(clientID: "kn", keepAlive: 30, user: "u", password: "p", will: will).encoded)
        let body: [UInt8] =
            [0, 4] + Array("MQTT".utf8) + [4]
            + [0x80 | 0x40 | 0x20 | 0x08 | 0x04 | 0x02]  // user, password, will retained at QoS 1, clean session
            + [0, 30] + [0, 2] + Array("kn".utf8) + [0, 3] + Array("k/s".utf8) + [0, 7] + Array("offline".utf8)
            + [0, 1] + Array("u".utf8) + [0, 1] + Array("p".utf8)
        #expect(bytes == [0x10, UInt8(body.count)] + body)
        // Anonymous, no will: only the clean-session flag.
        let bare = [UInt8](MQTTPacket.connect(clientID: "kn", keepAlive: 30, user: nil, password: nil, will: nil).encoded)
        #expect(bare[9] == 0x02)
    }

    @Test func publishAndItsLength() {
        let short = [UInt8](MQTTPacket.publish(MQTTMessage(topic: "a/b", text: "on", retain: true), packetID: nil).encoded)
        #expect(short == [0x31, 7, 0, 3] + Array("a/b".utf8) + Array("on".utf8))
        // 200 bytes of payload: the remaining length takes two bytes (7 bits each, least significant first).
        let long = [UInt8](
            MQTTPacket.publish(MQTTMessage(topic: "t", payload: Data(repeating: 0x41, count: 200), retain: false), packetID: nil)
                .encoded)
        #expect(long[0] == 0x30 && long[1] == (203 % 128) | 0x80 && long[2] == 203 / 128 && long.count == 206)
        #expect([UInt8](MQTTPacket.subscribe(packetID: 1, filters: ["x"]).encoded) == [0x82, 6, 0, 1, 0, 1, 0x78, 0])
        #expect([UInt8](MQTTPacket.pingRequest.encoded) == [0xC0, 0] && [UInt8](MQTTPacket.disconnect.encoded) == [0xE0, 0])
    }

    @Test func readerCutsPacketsWhereverTheBytesBreak() throws {
        let message = MQTTMessage(topic: "homeassistant/status", text: "online", retain: false)
        var stream = Data([0x20, 2, 0, 0])  // CONNACK accepted
        stream.append(Data([0x90, 3, 0, 1, 0]))  // SUBACK
        stream.append(MQTTPacket.publish(message, packetID: nil).encoded)
        stream.append(Data([0x32]) + MQTTPacket.publish(message, packetID: 7).encoded.dropFirst())  // QoS 1
        stream.append(Data([0xD0, 0]))
        let expected: [MQTTPacket] = [
            .connectAcknowledged(returnCode: 0), .subscribeAcknowledged(packetID: 1, returnCodes: [0]),
            .publish(message, packetID: nil), .publish(message, packetID: 7), .pingResponse,
        ]
        for split in [1, 2, 3, 5, 7, 64] {
            var reader = MQTTPacketReader(maximumPacket: 1_024)
            var packets: [MQTTPacket] = []
            var offset = 0
            while offset < stream.count {
                reader.feed(stream.subdata(in: offset..<min(stream.count, offset + split)))
                offset += split
                while let packet = try reader.next() { packets.append(packet) }
            }
            #expect(packets == expected, "fed \(split) bytes at a time")
        }
    }

    @Test func whatNoBrokerSendsIsAnError() {
        let hostile: [(String, [UInt8])] = [
            ("a length in five bytes", [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            ("a packet over the limit", [0x30, 0x80, 0x80, 0x01]),
            ("a CONNECT from the broker", [0x10, 0]),
            ("QoS 3", [0x36, 5, 0, 1, 0x61, 0, 1]),
            ("a topic longer than its packet", [0x30, 3, 0, 9, 0x61]),
            ("a topic that is not UTF-8", [0x30, 4, 0, 2, 0xFF, 0xFE]),
            ("a CONNACK of three bytes", [0x20, 3, 0, 0, 0]),
        ]
        for (name, bytes) in hostile {
            var reader = MQTTPacketReader(maximumPacket: 1_024)
            reader.feed(Data(bytes))
            #expect(throws: MQTTProtocolError.self, "\(name)") { _ = try reader.next() }
        }
    }

    @Test func randomBytesNeverCrashTheReader() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var reader = MQTTPacketReader(maximumPacket: 512)
            let count = Int.random(in: 0..<64, using: &generator)
            reader.feed(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            for _ in 0..<70 {
                guard let packet = try? reader.next() else { break }
                _ = packet
            }
        }
    }

    @Test func brokerURLs() throws {
        let plain = try MQTTSettings(url: "mqtt://homeassistant.local", password: nil)
        #expect(plain.port == 1883 && !plain.tls && plain.user == nil && plain.description == "mqtt://homeassistant.local:1883")
        let tls = try MQTTSettings(url: "mqtts://kuroneko@broker.example:8884", password: "secret")
        #expect(tls.port == 8884 && tls.tls && tls.user == "kuroneko" && tls.password == "secret")
        let refused: [(String, String?, String)] = [
            ("http://broker", nil, "is not mqtt://"),
            ("mqtt://", nil, "names no host"),
            ("mqtt://u:p@broker", nil, "process list"),
            ("mqtt://broker/topic", nil, "path or query"),
            ("mqtt://broker:0", nil, "between 1 and 65535"),
            ("mqtt://broker", "secret", "a password without a user"),
        ]
        for (url, password, words) in refused {
            #expect(throws: MQTTSettingsError.self) { try MQTTSettings(url: url, password: password) }
            do {
                _ = try MQTTSettings(url: url, password: password)
            } catch {
                #expect(error.description.contains(words), "\(url): \(error)")
            }
        }
    }
}
