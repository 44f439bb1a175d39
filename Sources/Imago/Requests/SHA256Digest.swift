import Crypto
import Foundation

/// Lowercase hex SHA-256, used for content identities.
enum SHA256Digest {
    static func hex(of data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
