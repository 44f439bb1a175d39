import CImagoTestCodecs
import Foundation

/// The bare C call a decode row is measured against (`c-direct`): the codec library itself,
/// through the test-only C target (`imago_reference_decode`, which picks the library by the
/// file's signature), into a caller's RGBA buffer of `width × height × 4` bytes, with nothing
/// of Imago's in between.
public enum ReferenceDecode {
    /// Decodes `data` (a PNG, JPEG or WebP of `width × height`) into `buffer`.
    public static func decode(_ data: Data, width: Int, height: Int, into buffer: UnsafeMutableRawPointer,
                              path: String) throws {
        let out = buffer.assumingMemoryBound(to: UInt8.self)
        let status = data.withUnsafeBytes { raw -> imago_status in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return IMAGO_ERR_UNSUPPORTED }
            return imago_reference_decode(bytes, raw.count, out, UInt32(width), UInt32(height))
        }
        guard status == IMAGO_OK else { throw BenchError("reference decode of \(path) failed (\(status.rawValue))") }
    }
}
