/// Where log lines go: the bytes of one line, without its newline. The access log formats each line into a
/// buffer on the stack and hands it over here, so that logging a request allocates nothing.
public protocol LogSink: Sendable {
    func write(line: UnsafeRawBufferPointer)
}

/// Lines as strings, to a closure (tests, or anything that is not the hot path).
public struct StringLogSink: LogSink {
    private let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public func write(line: UnsafeRawBufferPointer) {
        write(String(decoding: line, as: UTF8.self))
    }
}

/// A line of ASCII text built in a fixed-size buffer; what does not fit is cut off, so a line never grows
/// beyond the buffer.
struct LogLineBuilder: ~Copyable {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<count])) }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let taken = min(bytes.count, buffer.count - count)
        guard taken > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: taken)
        count += taken
    }

    mutating func append(byte: UInt8) {
        guard count < buffer.count else { return }
        buffer[count] = byte
        count += 1
    }

    /// Printable ASCII as a JSON string, quotes and backslashes escaped (the access log's fields are
    /// printable ASCII already); any other byte is written as `?`.
    mutating func appendJSONString(_ text: String) {
        append(byte: UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                append(byte: UInt8(ascii: "\\"))
                append(byte: byte)
            } else {
                append(byte: byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: "?"))
            }
        }
        append(byte: UInt8(ascii: "\""))
    }

    /// A non-negative number in decimal, at least `minimumDigits` long (zeros in front).
    mutating func append(decimal value: Int, minimumDigits: Int = 1) {
        let value = max(0, value)
        var length = 1
        var power = 10
        while length < 19, value >= power {
            length += 1
            power &*= 10
        }
        length = max(length, minimumDigits)
        guard count + length <= buffer.count else { return }
        var remaining = value
        for position in stride(from: count + length - 1, through: count, by: -1) {
            buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        count += length
    }
}
