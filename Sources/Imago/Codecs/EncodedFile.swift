#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open encoded image file: its descriptor and the format its first bytes declare.
struct EncodedFile {
    let descriptor: Int32
    let format: ImageFormat

    init(path: String) throws(DecodeError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw .unreadable(path: path, reason: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            _ = Glibc.close(fd)
            throw .unreadable(path: path, reason: "not a regular file")
        }
        guard let prefix = SniffedFormat.prefix(ofFile: fd) else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw .unreadable(path: path, reason: reason)
        }
        if prefix.isEmpty {
            _ = Glibc.close(fd)
            throw .empty
        }
        do {
            format = try ImageDecoder.sniff(SniffedFormat(prefix: prefix))
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        descriptor = fd
    }

    func close() { _ = Glibc.close(descriptor) }
}

extension SniffedFormat {
    /// The first ``prefixLength`` bytes of the file open as `descriptor` (fewer at its end, none
    /// for an empty file), read with `pread` so its offset stays where it is; nil when the read
    /// fails (`errno` says why).
    static func prefix(ofFile descriptor: Int32) -> [UInt8]? {
        var prefix = [UInt8](repeating: 0, count: prefixLength)
        let got = prefix.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return got < 0 ? nil : Array(prefix.prefix(got))
    }
}
