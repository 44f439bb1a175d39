import Foundation
import ImagoConformance

/// Why the loader bench could not measure a subject, with a message a reader can act on.
public enum LoaderBenchError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A subject name that no list given to the bench holds.
    case unknownSubject(String, known: [String])
    /// The subject's `makeLoader` threw.
    case loaderCreationFailed(subject: String, reason: String)
    /// A load ended in a failure where the bench needs pixels.
    case loadFailed(subject: String, path: String, failure: ObservedFailure)
    /// A load published no terminal phase within the timeout.
    case timedOut(subject: String, path: String, after: Duration)
    /// The raw control could not load an image the loader is measured on.
    case controlFailed(path: String, reason: String)
    /// A load to be cancelled never reached the point of its response where the server holds it
    /// (`who`: the subject, or "raw control").
    case cancelPointNotReached(who: String, path: String, after: Duration)
    /// A memory probe's child process failed (`side`: loader or control) or printed no reading.
    case memoryProbeFailed(subject: String, side: String, reason: String)
    /// This process was started for a memory probe whose description it cannot read.
    case memoryProbeUnreadable

    /// One line naming the subject (or the control), what failed and why.
    public var description: String {
        switch self {
        case .unknownSubject(let name, let known):
            "unknown subject \(name); known: \(known.joined(separator: ", "))"
        case .loaderCreationFailed(let subject, let reason):
            "\(subject): the adapter could not make a loader: \(reason)"
        case .loadFailed(let subject, let path, let failure):
            "\(subject): loading \(path) failed with \(failure); the bench times successful loads only"
        case .timedOut(let subject, let path, let after):
            "\(subject): loading \(path) published no success or failure within \(after)"
        case .controlFailed(let path, let reason):
            "raw control: loading \(path) failed: \(reason)"
        case .cancelPointNotReached(let who, let path, let after):
            "\(who): the load of \(path) to be cancelled did not reach the server's hold point within \(after)"
        case .memoryProbeFailed(let subject, let side, let reason):
            "\(subject): measuring the \(side)'s memory in a fresh process failed: \(reason)"
        case .memoryProbeUnreadable:
            "this process was started to measure memory (\(LoaderMemoryProbe.environmentVariable)) but cannot read "
                + "the probe: start it with the bench's own arguments and environment"
        }
    }
}
