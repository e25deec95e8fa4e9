import Foundation
import KuronekoProcess

/// The bytes of a gzip body, as `gzip -d` reads them (an independent decoder, not the zlib wrapper tested).
/// The child is waited for on a thread of its own.
public func gunzip(_ data: Data) async throws -> Data {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gunzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.gz")
    let output = directory.appendingPathComponent("out")
    try data.write(to: input)
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    let reading = try FileHandle(forReadingFrom: input)
    let writing = try FileHandle(forWritingTo: output)
    let child = try ChildProcess(
        "/bin/gzip", ["-dc"], input: reading.fileDescriptor, output: writing.fileDescriptor,
        error: FileHandle.standardError.fileDescriptor)
    try reading.close()
    try writing.close()
    let status = await onOwnThread { child.wait() }
    guard status == 0 else { throw POSIXError(.EIO) }
    return try Data(contentsOf: output)
}
