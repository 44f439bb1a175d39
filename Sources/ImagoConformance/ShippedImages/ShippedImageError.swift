/// Why a shipped conformance image could not be served. Each is a packaging fault (a file missing or altered
/// after `imago conformance-images` wrote it, or a check asking for an image it did not list),
/// never a loader's: the message says which file and what to run.
public enum ShippedImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ImagoConformance's resource bundle has no such file.
    case missing(String)
    /// The file is not what the manifest or the packed format says it is.
    case corrupt(String, reason: String)
    /// A check asked for an image that `ShippedImage.all` does not list.
    case notShipped(String)

    /// One line naming the file, what is wrong and the command that fixes it.
    public var description: String {
        switch self {
        case .missing(let name):
            "conformance image \(name) is missing from ImagoConformance's resources (run `make conformance-images`)"
        case .corrupt(let name, let reason):
            "conformance image \(name) is corrupt: \(reason) (run `make conformance-images`)"
        case .notShipped(let name):
            "conformance image \(name) is not in ShippedImage.all (add it and run `make conformance-images`)"
        }
    }
}
