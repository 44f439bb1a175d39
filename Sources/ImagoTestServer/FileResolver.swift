import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file under the root, opened for one response.
struct FileResource: Sendable {
    /// Open for reading; whoever streams the body closes it.
    let handle: NIOFileHandle
    let size: Int
    let contentType: String
    let entityTag: String
    let lastModifiedSeconds: Int64
}

/// Maps request paths to files under the served directory, never outside it.
///
/// Why resolve symlinks and compare prefixes: rejecting `..` segments is not enough, a
/// symlink inside the root may point anywhere; only the real path tells whether the file
/// is under the real root. Every method here blocks and runs on NIO's thread pool.
struct FileResolver: Sendable {
    /// The root with symlinks resolved, without a trailing slash.
    let rootPath: String

    /// Resolves `root`; throws ``TestServerError/invalidConfiguration(_:)`` unless it is a
    /// directory.
    init(root: URL) throws {
        guard let real = Self.realPath(root.path) else {
            throw TestServerError.invalidConfiguration("root \(root.path) does not exist")
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw TestServerError.invalidConfiguration("root \(root.path) is not a directory")
        }
        rootPath = real.count > 1 && real.hasSuffix("/") ? String(real.dropLast()) : real
    }

    /// Opens the regular file that `path` (the request's path, already percent-decoded,
    /// without query) names under the root, or returns `nil` when there is none: missing,
    /// a directory, not readable, or outside the root.
    func open(path: String) -> FileResource? {
        guard !path.contains("\0") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.isEmpty, !segments.contains("..") else { return nil }
        let joined = rootPath + "/" + segments.filter { $0 != "." }.joined(separator: "/")
        guard let real = Self.realPath(joined), real.hasPrefix(rootPath == "/" ? "/" : rootPath + "/") else {
            return nil
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard let handle = try? NIOFileHandle(_deprecatedPath: real) else { return nil }
        // Describe what was opened, not what the path named a moment ago.
        let described = try? handle.withUnsafeFileDescriptor { fd -> FileResource? in
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            #if canImport(Darwin)
            let mtime = info.st_mtimespec
            #else
            let mtime = info.st_mtim
            #endif
            let nanoseconds = Int64(mtime.tv_sec) * 1_000_000_000 + Int64(mtime.tv_nsec)
            return FileResource(
                handle: handle,
                size: Int(info.st_size),
                contentType: MediaTypes.forFileName(real),
                entityTag: EntityTag.forFile(
                    device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
                    size: Int64(info.st_size), modifiedNanoseconds: nanoseconds),
                lastModifiedSeconds: Int64(mtime.tv_sec))
        }
        guard let resource = described ?? nil else {
            try? handle.close()
            return nil
        }
        return resource
    }

    private static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
