import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// The writer side of `CrashLeftoversTests`, run in a child process by `ChildTestProcess`
/// (which runs XCTest methods): with a file-size limit of `IMAGO_CRASHING_WRITER_LIMIT` bytes it
/// writes `CrashingWriter.entry` the way `IMAGO_CRASHING_WRITER` names, and the kernel kills it
/// with SIGXFSZ when the write crosses the limit, a real death mid-write. Does nothing in a
/// normal run.
final class CrashingWriterChild: XCTestCase {
    func testWriterChild() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let directory = environment["IMAGO_CRASHING_WRITER_DIR"],
              let writer = environment["IMAGO_CRASHING_WRITER"].flatMap(CrashingWriter.init(rawValue:)),
              let limit = environment["IMAGO_CRASHING_WRITER_LIMIT"].flatMap(rlim_t.init) else { return }
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)   // no core file left in the working directory
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore), 0)
        // An ignored or blocked SIGXFSZ is inherited across exec (the test runner's may be): restore
        // the default and unblock it on this thread, the one that writes (the kernel sends it to
        // the writing thread), so crossing the limit kills the writer instead of failing its write.
        signal(SIGXFSZ, SIG_DFL)
        var xfsz = sigset_t()
        sigemptyset(&xfsz)
        sigaddset(&xfsz, SIGXFSZ)
        XCTAssertEqual(pthread_sigmask(SIG_UNBLOCK, &xfsz, nil), 0)
        var fileSize = rlimit(rlim_cur: limit, rlim_max: limit)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileSize), 0)
        try writer.write(CrashingWriter.entry, in: URL(fileURLWithPath: directory))
        XCTFail("the write of \(CrashingWriter.entry.count) bytes under a \(limit)-byte limit returned")
    }
}
