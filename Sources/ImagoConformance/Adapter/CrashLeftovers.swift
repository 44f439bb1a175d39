import Foundation

/// What common file writers leave on disk when the process dies part-way through a write: the
/// ready-made bodies of `DiskCacheProbe.simulateCrashWhileStoring(_:for:writtenBytes:)` for a
/// disk cache that writes its entries one of these ways (DISK-1 is only as honest as that
/// simulation, and finding out what a writer leaves otherwise takes `strace`).
///
/// Each helper leaves exactly what its writer leaves, as if the crash happened `age` ago (DISK-1
/// opens the cache after a restart, when a sweep's grace period for files still being written has
/// long passed), and returns the leftover's URL.
public enum CrashLeftovers {
    /// How long ago the simulated crash happened, by default: one hour, past any sensible grace
    /// period a cache gives files another process may still be writing.
    public static let defaultAge: TimeInterval = 3600

    /// Foundation's `Data.write(to:options: .atomic)` on Linux (swift-foundation, Swift 6; read
    /// with `strace -f -e trace=file` and confirmed by killing a writer mid-write): the writer
    /// creates `.dat.nosync<PID>.<XXXXXX>` in the destination's directory (`<PID>` the writing
    /// process's id in upper-case hex, unpadded: `String(pid, radix: 16, uppercase: true)`, so
    /// process 841 writes `.dat.nosync349.…`; `XXXXXX` six random letters and
    /// digits, `mkstemp`'s), writes the bytes, `fsync`s, and renames it onto `destination`. A
    /// crash mid-write leaves that hidden file holding the bytes written so far, and
    /// `destination` as it was (absent, or the previous complete entry).
    /// - Parameters:
    ///   - bytes: the whole entry the writer was writing.
    ///   - writtenBytes: how many of them reached the file (0 leaves an empty file: the writer
    ///     creates it before the first write).
    ///   - destination: the entry's file, as passed to `Data.write(to:options:)`.
    ///   - age: how long ago the crash happened (default ``defaultAge``, one hour).
    /// - Returns: the leftover temporary file.
    @discardableResult
    public static func foundationAtomicWrite(of bytes: Data, writtenBytes: Int, to destination: URL,
                                             age: TimeInterval = defaultAge) throws -> URL {
        let name = foundationTemporaryName(processIdentifier: ProcessInfo.processInfo.processIdentifier)
        let leftover = destination.deletingLastPathComponent().appendingPathComponent(name)
        return try leave(bytes.prefix(writtenBytes), at: leftover, age: age)
    }

    /// A writer that writes the whole entry to `temporary` (a name the cache chooses, normally in
    /// the destination's directory, e.g. `<hash>.tmp` or `.tmp-<uuid>`) and renames it onto the
    /// entry's file when complete: `Data.write(to: temporary)` or a `FileHandle`, then
    /// `FileManager.moveItem` or `rename(2)`. A crash mid-write leaves `temporary` holding the
    /// bytes written so far (an existing file there is truncated first, as the writer opens it
    /// with `O_TRUNC`), and the entry's file as it was.
    /// - Parameters:
    ///   - bytes: the whole entry the writer was writing.
    ///   - writtenBytes: how many of them reached the file.
    ///   - temporary: the temporary file the cache's writer uses for this entry.
    ///   - age: how long ago the crash happened (default ``defaultAge``, one hour).
    /// - Returns: `temporary`.
    @discardableResult
    public static func temporaryFileThenRename(of bytes: Data, writtenBytes: Int, temporary: URL,
                                               age: TimeInterval = defaultAge) throws -> URL {
        try leave(bytes.prefix(writtenBytes), at: temporary, age: age)
    }

    /// The name Foundation's atomic write gives its temporary file in process `processIdentifier`:
    /// `.dat.nosync` and the id in upper-case hex (unpadded, as swift-foundation's
    /// `createTemporaryFile` spells it), a dot, and six random letters and digits.
    static func foundationTemporaryName(processIdentifier: Int32) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let suffix = String((0..<6).map { _ in alphabet.randomElement()! })
        return ".dat.nosync" + String(processIdentifier, radix: 16, uppercase: true) + "." + suffix
    }

    private static func leave(_ prefix: Data, at file: URL, age: TimeInterval) throws -> URL {
        try prefix.write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)],
                                              ofItemAtPath: file.path)
        return file
    }
}
