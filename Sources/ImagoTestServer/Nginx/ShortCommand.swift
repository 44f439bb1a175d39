import Foundation

/// A short-lived command a test helper runs to completion (`openssl`, `nginx -v`): its exit
/// status and standard error, standard output discarded.
///
/// Foundation's `Process` is fine here, unlike for nginx itself (see `NginxChild`): these
/// commands need no signal and are waited for at once.
struct ShortCommand {
    /// What the command said and how it ended.
    struct Outcome {
        var status: Int32
        var stderr: String
    }

    /// The first of `explicit` (when given), `/usr/bin/NAME`, `/usr/sbin/NAME` and `NAME` on
    /// `PATH` that is an executable file, or nil.
    static func locate(_ name: String, explicit: String?) -> String? {
        if let explicit { return FileManager.default.isExecutableFile(atPath: explicit) ? explicit : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/bin/\(name)", "/usr/sbin/\(name)"] + path.split(separator: ":").map { "\($0)/\(name)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments` and waits for it; a ``StartFailure`` when it cannot
    /// be started. Standard error is read to its end before the wait, so a chatty
    /// command cannot block on a full pipe.
    static func run(_ executable: String, _ arguments: [String]) -> Result<Outcome, StartFailure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(StartFailure(reason: "cannot run \(executable): \(error.localizedDescription)"))
        }
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return .success(Outcome(status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self)))
    }

    /// Why a command could not be started.
    struct StartFailure: Error {
        var reason: String
    }
}

/// The `openssl` command ``TestCertificates`` runs.
struct OpenSSLCommand {
    let executable: String

    /// `explicit`, else `/usr/bin/openssl`, else the first on `PATH`; `.unavailable` when none.
    init(executable explicit: String?) throws(TestCertificatesError) {
        guard let found = ShortCommand.locate("openssl", explicit: explicit) else {
            throw .unavailable(reason: explicit.map { "\($0) is not an executable file" }
                ?? "no openssl in /usr/bin or on PATH; `apt-get install openssl` provides Debian's")
        }
        executable = found
    }

    /// Runs openssl with `arguments`; `.failed` with its standard error unless it exits 0.
    func run(_ arguments: [String]) throws(TestCertificatesError) {
        switch ShortCommand.run(executable, arguments) {
        case .failure(let failure):
            throw .unavailable(reason: failure.reason)
        case .success(let outcome) where outcome.status != 0:
            throw .failed(arguments: arguments.joined(separator: " "), status: outcome.status,
                          stderr: String(outcome.stderr.suffix(2_000)))
        case .success:
            return
        }
    }
}
