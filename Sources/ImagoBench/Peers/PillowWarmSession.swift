import Foundation

/// One long-lived Python interpreter that decodes a file with Pillow each time it is asked,
/// so Pillow's warm-loop samples can be interleaved round-robin with Imago's instead of being
/// taken in one block. The time is measured inside Python (pipe round trips excluded).
final class PillowWarmSession {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    init(python: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-c", Self.script]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Milliseconds Pillow took to decode `file` to RGBA once.
    func decodeMilliseconds(file: String) throws -> Double {
        try input.fileHandleForWriting.write(contentsOf: Data((file + "\n").utf8))
        let line = try readLine()
        guard let ms = Double(line) else { throw PeerUnavailable(reason: "Pillow answered \(line)") }
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
            if chunk.isEmpty { throw PeerUnavailable(reason: "Pillow's interpreter exited") }
            pending.append(chunk)
        }
    }

    private static let script = """
        import sys, time
        from PIL import Image
        for line in sys.stdin:
            path = line.rstrip("\\n")
            try:
                t = time.perf_counter()
                im = Image.open(path).convert("RGBA")
                im.load()
                print((time.perf_counter() - t) * 1000.0, flush=True)
            except Exception as e:
                print("error " + str(e).replace("\\n", " "), flush=True)
        """
}
