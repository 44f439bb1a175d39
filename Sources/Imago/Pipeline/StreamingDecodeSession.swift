import Foundation
import Synchronization

/// One attempt of a streaming load: the consumer a `.stream` fetch hands its body to. Each
/// piece goes to the disk cache's temporary file (the tee, when the load may write the disk) and
/// into the push decoder. At the header, the decode asks the decode stage for its slot and bytes
/// (`DecodeStage.admit`), exactly as a decode of a stored body does, and the transfer waits meanwhile (the
/// transport asks for the next piece only when this one is taken). Previews go to the shared
/// work's subscribers, at most one per `PreviewPolicy.minimumInterval`.
///
/// `@unchecked Sendable`: the transport calls `consume` from one task, one piece at a time, and
/// the pipeline reads the outcome only after the fetch returned; `cancel` touches only the
/// decoder's cancellation flag (atomic).
final class StreamingDecodeSession: StreamingBodyConsumer, @unchecked Sendable {
    private let stage: DecodeStage
    private let request: ImageRequest
    private let shared: SharedWork
    private let decoder: StreamingDecoder
    private let previews: PreviewPolicy?
    /// Where the body's copy goes, until its file is opened at the first piece (nil: none kept).
    private var teeFile: (@Sendable () -> URL)?
    private var tee: DownloadFile?
    private var admission: DecodeAdmission?
    private var received = 0
    /// When the last preview was published, and how long it took to render.
    private var lastPreview: (end: ContinuousClock.Instant, cost: Duration)?
    /// Why the decode stopped the transfer (nil while it goes on).
    private(set) var failure: ImageLoadingError?

    /// `teeFile`: gives the path of the body's copy for the disk cache (the cache's
    /// `makeTemporaryFileURL`; nil: no copy is kept).
    init(stage: DecodeStage, request: ImageRequest, shared: SharedWork, teeFile: (@Sendable () -> URL)?) {
        self.stage = stage
        self.request = request
        self.shared = shared
        self.decoder = StreamingDecoder(options: request.options)
        self.previews = stage.previews
        self.teeFile = teeFile
    }

    deinit { close() }

    /// Stops the decode where it is (the transfer is stopped by its own task's cancellation).
    func cancel() { decoder.cancellation.cancel() }

    func consume(_ piece: Data) async throws(FetchError) {
        received += piece.count
        if let makeURL = teeFile {
            // Opened at the first byte of an accepted body (a 404 makes no file); a file that
            // cannot be made leaves the load uncached.
            teeFile = nil
            tee = try? DownloadFile(at: makeURL(), fallsBackToMemory: false)
        }
        if let file = tee {
            do throws(FetchError) { try file.write(piece) } catch { file.abandon(); tee = nil }   // the load goes on uncached
        }
        var offset = 0
        while true {
            let pushed = piece.withUnsafeBytes { raw in
                Result { () throws(DecodeError) in try decoder.push(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            let stop: StreamingDecoder.Stop
            switch pushed {
            case .success(let (consumed, next)): offset += consumed; stop = next
            case .failure(let error): throw refuse(error)
            }
            switch stop {
            case .header:
                try await beginDecode()
            case .preview: publishPreviewIfDue()
            case .complete: return   // bytes after the image's end still reach the tee above
            case .needsInput: if offset >= piece.count { return }
            }
        }
    }

    /// The transfer ended well: the decoded image, or why there is none.
    func finish() -> Result<DecodedImage, ImageLoadingError> {
        if let failure { return .failure(failure) }
        let result = Result { () throws(DecodeError) in try decoder.finish() }
        endDecode()
        return result.mapError { $0 == .cancelled ? .cancelled : .decoding($0) }
    }

    /// Hands over the body's copy once the image decoded, still open (nil when none was kept):
    /// the receiver stores it (`completedCopy()`, then `release()`) or abandons it.
    func takeTee() -> DownloadFile? {
        defer { tee = nil }
        return tee
    }

    /// The decode slot and bytes, admitted by the decode stage as for a stored body.
    private func beginDecode() async throws(FetchError) {
        guard let estimate = decoder.estimate else { return }
        let shared = self.shared
        switch await stage.admit(bytes: estimate.totalBytes, key: request.key.description, priority: { shared.priority }) {
        case .success(let admitted): admission = admitted
        case .failure(let refusal): throw refuse(refusal)   // `.cancelled` stays a cancellation
        }
        do throws(DecodeError) {
            try decoder.start(previews: previews != nil)
        } catch {
            throw refuse(error)
        }
    }

    /// A preview when the last one is at least `minimumInterval` old and (unless the interval is
    /// zero: every scan) at least as old as it took to render: a preview of a large output is a
    /// whole output pass (libjpeg renders a scan at the output's size), so previews never take
    /// more than half of the decode's time.
    private func publishPreviewIfDue() {
        guard let previews, shared.wantsPreviews else { return }
        let start = ContinuousClock.now
        if let lastPreview, previews.minimumInterval > .zero,
           start - lastPreview.end < max(previews.minimumInterval, lastPreview.cost) { return }
        guard let rendered = try? decoder.renderPreview(maxPixelSize: previews.maxPixelSize) else { return }
        let end = ContinuousClock.now
        lastPreview = (end, end - start)
        shared.report(ImagePreview(pixels: rendered.pixels, detail: rendered.detail, receivedBytes: received))
    }

    private func refuse(_ error: DecodeError) -> FetchError {
        if error == .cancelled { return .cancelled }
        failure = .decoding(error)
        return .bodyRefused("\(error)")
    }

    /// Gives back the decode slot (once).
    private func endDecode() {
        admission?.end()
        admission = nil
    }

    /// Ends the attempt: the decode slot given back, the decoder's memory freed and the copy
    /// not handed over removed, at once (not when the session object goes, which a transport
    /// that keeps its requests could delay for ever). Idempotent.
    func close() {
        endDecode()
        decoder.close()
        tee?.abandon()
        tee = nil
        teeFile = nil
    }
}
