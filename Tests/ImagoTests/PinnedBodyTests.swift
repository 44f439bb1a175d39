import Foundation
import ImagoTestServer
import Synchronization
import Testing
@testable import Imago

/// A download to file is decoded through the descriptor its load holds open
/// (`/proc/self/fd/N`). When another part of the process closes that number and another file
/// takes it (a double close elsewhere), the load must notice, decode the disk cache's entry by
/// name, keep the entry (its bytes were never at fault), and never close the number that is now
/// someone else's. Once in the fault soak under ThreadSanitizer, a URLSession download that
/// arrived whole failed with `decoding(unsupportedFormat)` instead.
@Suite struct PinnedBodyTests {
    /// A file written with `bytes` and opened for reading: what a reused number leads to here.
    static func openFile(_ name: String, _ bytes: [UInt8], in directory: URL) throws -> (url: URL, descriptor: Int32) {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        return (url, descriptor)
    }

    /// An HTML page, which does not decode.
    static func htmlFile(in directory: URL) throws -> (url: URL, descriptor: Int32) {
        try openFile("page.html", Array("<!doctype html><title>not the image</title>".utf8), in: directory)
    }

    /// Another image, which would decode: the load must still deliver its own.
    static func otherImageFile(in directory: URL) throws -> (url: URL, descriptor: Int32) {
        try openFile("other.png", TestCorpus.bytes("png/rgba-8.png"), in: directory)
    }

    static func inode(_ descriptor: Int32) -> UInt64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    @Test func aPinnedFileNeverClosesANumberThatIsNoLongerItsOwn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = directory.appendingPathComponent("body.jpg")
        try Data(TestCorpus.bytes("jpeg/baseline-420-q90.jpg")).write(to: body)
        let html = try Self.htmlFile(in: directory)
        defer { close(html.descriptor) }

        let intact = try #require(PinnedFile(body))
        #expect(intact.isIntact)
        intact.close()
        #expect(fcntl(intact.descriptor, F_GETFD) == -1 || Self.inode(intact.descriptor) != Self.inode(html.descriptor),
                "an intact pin closes its descriptor")

        let taken = try #require(PinnedFile(body))
        // Another owner closes the number and a new file gets it: dup2 does both at once.
        try #require(dup2(html.descriptor, taken.descriptor) == taken.descriptor)
        #expect(!taken.isIntact)
        taken.close()
        #expect(Self.inode(taken.descriptor) == Self.inode(html.descriptor), "the other owner's file is still open")
        close(taken.descriptor)
    }

    /// Forwards to a real `DiskCache`; after storing a download, gives every read-only
    /// descriptor open on the stored entry (the load's pin; the partial's lock is read-write) to
    /// another file, as a double close and a reuse would.
    final class TakingDescriptors: DiskCacheWrapping {
        let cache: DiskCache
        let foreign: Int32
        private let numbers = Mutex<[Int32]>([])
        var taken: [Int32] { numbers.withLock { $0 } }
        init(_ cache: DiskCache, foreign: Int32) { (self.cache, self.foreign) = (cache, foreign) }

        func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            try cache.store(data, forKey: key, metadata: metadata)
        }
        func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            let stored = try cache.store(fileAt: url, forKey: key, metadata: metadata)
            guard let entry = cache.entry(forKey: key) else { return stored }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for name in names {
                guard let number = Int32(name),
                      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == entry.url.path,
                      fcntl(number, F_GETFL) & O_ACCMODE == O_RDONLY, dup2(foreign, number) == number
                else { continue }
                numbers.withLock { $0.append(number) }
            }
            return stored
        }
    }

    @Test(arguments: ["ahc", "urlsession"], ["an HTML page", "another image"])
    func aDownloadWhoseDescriptorWasTakenDecodesTheEntryAndKeepsIt(_ transport: String, _ taker: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let foreign = taker == "an HTML page" ? try Self.htmlFile(in: directory) : try Self.otherImageFile(in: directory)
        defer { close(foreign.descriptor) }
        let cache = TakingDescriptors(try DiskCache(directory: directory.appendingPathComponent("cache")), foreign: foreign.descriptor)
        let server = try await TestServer.start()
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q90.jpg")
        server.setRoute("/a.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(headers: ["Cache-Control": "max-age=600"])))
        let url = server.url(for: "/a.jpg")
        var pipeline: ImagePipeline? = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport == "ahc" ? AsyncHTTPClientTransport() : URLSessionTransport(),
                                memoryCache: nil, diskCache: cache),
            network: .init(fetchStrategy: .file, temporaryDirectory: directory)))
        let result: Result<ImageResponse, any Error>
        do {
            result = .success(try await pipeline!.response(for: ImageRequest(source: .url(url))))
        } catch {
            result = .failure(error)
        }
        pipeline = nil
        try await server.shutdown()

        #expect(!cache.taken.isEmpty, "the load held the stored body open")
        let response = try result.get()
        #expect(response.image.pixels == (try ImageDecoder.decode(jpeg).pixels))
        #expect(cache.cache.entry(forKey: ImageRequest(source: .url(url)).source.identity) != nil, "the entry was kept")
        // The pipeline is gone with its payloads: every taken number still leads to the foreign file.
        let foreignInode = Self.inode(foreign.descriptor)
        for number in cache.taken {
            #expect(Self.inode(number) == foreignInode, "descriptor \(number) was closed by the load")
            if Self.inode(number) == foreignInode { close(number) }
        }
    }
}
