import Foundation

/// Pillow as a peer: the same files decoded to RGBA by Python's best-known image library,
/// timed inside the Python process (interpreter start-up excluded), both as the first decode
/// in a fresh process ("cold") and in a warm loop.
public struct PillowPeer: Sendable {
    public let python: String
    public let version: String

    /// Nil (with the reason) when python3 or Pillow is not importable.
    public static func locate(python: String = "python3") -> Result<PillowPeer, PeerUnavailable> {
        guard let output = try? runPython(python, ["-c", "import PIL; print(PIL.__version__)"]),
              let version = output.split(separator: "\n").first.map(String.init), !version.isEmpty
        else { return .failure(PeerUnavailable(reason: "Pillow is not importable by \(python)")) }
        return .success(PillowPeer(python: python, version: version))
    }

    /// Milliseconds of the first decode in each of `processes` fresh interpreters.
    public func coldSamples(file: String, processes: Int) throws -> [Double] {
        try (0..<processes).map { _ in try timings(file: file, iterations: 1).first ?? .nan }
    }

    /// Milliseconds of each decode in one interpreter, after `warmUp` discarded decodes.
    public func warmSamples(file: String, warmUp: Int, iterations: Int) throws -> [Double] {
        Array(try timings(file: file, iterations: warmUp + iterations).dropFirst(warmUp))
    }

    /// A warm interpreter for interleaved samples.
    func warmSession() throws -> PillowWarmSession { try PillowWarmSession(python: python) }

    private func timings(file: String, iterations: Int) throws -> [Double] {
        let output = try Self.runPython(python, ["-c", Self.script, file, String(iterations)])
        return output.split(separator: "\n").compactMap { Double($0) }
    }

    private static let script = """
        import sys, time
        from PIL import Image
        path, n = sys.argv[1], int(sys.argv[2])
        for _ in range(n):
            t = time.perf_counter()
            im = Image.open(path).convert("RGBA")
            im.load()
            print((time.perf_counter() - t) * 1000.0, flush=True)
        """

    private static func runPython(_ python: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PeerUnavailable(reason: "\(python) exited with \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }
}

public struct PeerUnavailable: Error, Sendable {
    public let reason: String
}
