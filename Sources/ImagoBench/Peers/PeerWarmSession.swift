import Foundation

/// One long-lived interpreter that runs a peer's snippet on a file each time it is asked, so
/// the peer's warm-loop samples can be interleaved round-robin with Imago's instead of being
/// taken in one block. The time is measured inside Python (pipe round trips excluded).
final class PeerWarmSession {
    private let title: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    init(peer: DecodePeer, python: String, script: String) throws {
        title = peer.title
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(peer.environment) { _, peer in peer }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Milliseconds the peer took on `file`: the mean of `batch` runs in a row (default 1).
    func milliseconds(file: String, batch: Int = 1) throws -> Double {
        try input.fileHandleForWriting.write(contentsOf: Data((file + "\t\(max(1, batch))\n").utf8))
        let line = try readLine()
        guard let ms = Double(line) else { throw PeerUnavailable(reason: "\(title) answered \(line)") }
        return ms
    }

    private func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw PeerUnavailable(reason: "\(title)'s interpreter exited") }
            pending.append(chunk)
        }
    }
}
