import Foundation

/// A peer whose module imports in this machine's Python: what it reports as its version, and
/// the ways of timing it, each in interpreters of its own.
public struct InstalledPeer: Sendable {
    /// Which peer this is.
    public let peer: DecodePeer
    /// The interpreter it runs in (default "python3", `imago bench --python`).
    public let python: String
    /// The version the module reports, e.g. "4.12.0".
    public let version: String

    /// Cold samples: milliseconds of the first `task` in each of `processes` fresh interpreters.
    public func coldSamples(_ task: PeerTask, file: String, processes: Int) throws -> [Double] {
        try (0..<processes).map { _ in try timings(task, file: file, iterations: 1).first ?? .nan }
    }

    /// Warm-loop samples: milliseconds of each `task` in one interpreter, after `warmUp` discarded ones.
    public func warmSamples(_ task: PeerTask, file: String, warmUp: Int, iterations: Int) throws -> [Double] {
        Array(try timings(task, file: file, iterations: warmUp + iterations).dropFirst(warmUp))
    }

    /// A warm interpreter for samples interleaved with Imago's.
    func warmSession(_ task: PeerTask) throws -> PeerWarmSession {
        guard let script = PeerScript.timing(peer, task) else { throw PeerUnavailable(reason: "\(peer.title) has no \(task.rawValue) snippet") }
        return try PeerWarmSession(peer: peer, python: python, script: script)
    }

    private func timings(_ task: PeerTask, file: String, iterations: Int) throws -> [Double] {
        guard let script = PeerScript.timing(peer, task) else { throw PeerUnavailable(reason: "\(peer.title) has no \(task.rawValue) snippet") }
        let output = try PeerProcess.run(python: python, environment: peer.environment, ["-c", script, file, String(iterations)])
        let timings = output.split(separator: "\n").compactMap { Double($0) }
        guard timings.count == iterations else { throw PeerUnavailable(reason: "\(peer.title) printed \(timings.count) of \(iterations) timings") }
        return timings
    }
}

/// Why a peer has no numbers: not importable, or its interpreter failed.
public struct PeerUnavailable: Error, Sendable, CustomStringConvertible {
    /// What is missing or what failed, e.g. "simplejpeg not installed (python3 cannot import simplejpeg; run make peers)".
    public let reason: String
    /// The reason, as the report and the skipped rows print it.
    public var description: String { reason }
}

/// One peer as `imago bench` found it on this machine.
public struct PeerStatus: Sendable {
    /// The peer looked up.
    public let peer: DecodePeer
    /// The peer ready to run, or why it cannot (e.g. "libvips not installed").
    public let installed: Result<InstalledPeer, PeerUnavailable>

    /// A status as found (`locate`) or as a test states it.
    public init(peer: DecodePeer, installed: Result<InstalledPeer, PeerUnavailable>) {
        self.peer = peer
        self.installed = installed
    }

    /// Looks `peer` up in `python` (default "python3"): imports it and reads its version.
    public static func locate(_ peer: DecodePeer, python: String = "python3") -> PeerStatus {
        let output = try? PeerProcess.run(python: python, environment: peer.environment, ["-c", PeerScript.version(peer)])
        guard let version = output?.split(separator: "\n").first.map(String.init), !version.isEmpty else {
            return PeerStatus(peer: peer, installed: .failure(
                PeerUnavailable(reason: "\(peer.name) not installed (\(python) cannot import \(peer.module); run make peers)")))
        }
        return PeerStatus(peer: peer, installed: .success(InstalledPeer(peer: peer, python: python, version: version)))
    }

    /// Every peer of `DecodePeers.all`, looked up in `python`.
    public static func locateAll(python: String = "python3") -> [PeerStatus] {
        DecodePeers.all.map { locate($0, python: python) }
    }
}

/// Runs one Python program to its end and returns what it printed (stderr is dropped: a
/// failure is reported by its exit status).
enum PeerProcess {
    static func run(python: String, environment: [String: String], _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, peer in peer }
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
