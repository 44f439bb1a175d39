import CImagoCodecs
import Foundation

extension ImagePipeline {
    /// The decode stage: bounded concurrency and bytes, ordered by the shared work's live
    /// priority. The image's header is read first, so the decode declares what it will need
    /// before any pixel is allocated (`Configuration.decodeMemoryBudget`).
    func decode(_ storage: Payload.Storage, _ request: ImageRequest, _ shared: SharedWork,
                origin: ImageOrigin) async -> Outcome {
        let key = request.key.description
        // A header that cannot be read is reported by the decode itself, exactly as before.
        let estimate = try? storage.memoryEstimate(options: request.options)
        let bytes = estimate?.totalBytes ?? 0
        if let refusal = memoryRefusal(bytes) {
            counters.record { $0.decodesRefusedForMemory += 1 }
            return .failure(.decoding(refusal))
        }
        makeRoom(for: bytes)
        let decoded = await decodeLimiter.run(priority: { shared.priority }, bytes: bytes, onWaitForBytes: {
            counters.record { $0.decodesWaitedForMemory += 1 }
        }) { () async -> Result<DecodedImage, DecodeError> in
            if let refusal = aloneRefusal(bytes) {
                counters.record { $0.decodesRefusedForMemory += 1 }
                return .failure(refusal)
            }
            counters.record {
                $0.decodes += 1
                $0.decodeBytesAdmitted += bytes
            }
            emit(.decodeStart, key)
            defer { emit(.decodeEnd, key) }
            do throws(DecodeError) {
                switch storage {
                case .data(let data): return .success(try await ImageDecoder.decode(data, options: request.options))
                case .file(let url): return .success(try await ImageDecoder.decode(contentsOfFile: url.path, options: request.options))
                }
            } catch {
                return .failure(error)
            }
        }
        guard let decoded else { return .failure(.cancelled) }
        switch decoded {
        case .failure(.cancelled): return .failure(.cancelled)
        case .failure(let error): return .failure(.decoding(error))
        case .success(let image): return .success(ImageResponse(image: image, origin: origin))
        }
    }

    /// Pooled pages and cached images are kept for speed: a decode that would pass the live
    /// pixel ceiling gets their room first (the pool, then the memory cache's least recently
    /// used entries, as far as needed), instead of waiting on memory only this pipeline holds.
    func makeRoom(for bytes: Int) {
        guard configuration.budgetsDecodeMemory, Self.pixelBytesOverCeiling(adding: bytes) > 0 else { return }
        PixelMemory.trim()
        let excess = Self.pixelBytesOverCeiling(adding: bytes)
        if excess > 0, let cache = configuration.memoryCache, cache.totalCost > 0 {
            cache.trim(toCost: max(0, cache.totalCost - excess))
            counters.record { $0.cacheTrims += 1 }
        }
    }

    /// `.exceedsMemoryLimit` when a decode needing `bytes` could never fit in the process's
    /// effective memory limit (read now: it may have changed); nil when the budget is off.
    func memoryRefusal(_ bytes: Int) -> DecodeError? {
        guard configuration.budgetsDecodeMemory else { return nil }
        return Self.memoryRefusal(bytes, limit: MemoryBudgets.current.limitBytes, heldBesidesPixels: nil)
    }

    /// Once admitted, a decode larger than the decode budget runs alone, and is also weighed
    /// against what the process holds besides pixels (`nonPixelResidentBytes`): the encoded body
    /// of a `data` fetch, bodies still arriving, the runtime. Other decodes' working memory is
    /// gone by then, and no wait frees the rest; such a decode started anyway is how a container
    /// gets OOM-killed (a 40 MP PNG fetched as data under 192 MiB). Nil when it fits, is not
    /// that large, or the budget is off.
    func aloneRefusal(_ bytes: Int) -> DecodeError? {
        let budgets = MemoryBudgets.current
        guard configuration.budgetsDecodeMemory, bytes > budgets.decodeBudget, bytes <= budgets.limitBytes,
              let held = Self.nonPixelResidentBytes() else { return nil }
        return Self.memoryRefusal(bytes, limit: budgets.limitBytes, heldBesidesPixels: held)
    }

    /// The rule itself: the need alone past the limit, or (when measured) the need plus
    /// `heldBesidesPixels` plus a sixteenth of the limit past it. The sixteenth is what the
    /// kernel and the loads still receiving bodies add while the decode runs: a 40 MP PNG
    /// fetched as data under 224 MiB peaked at 223 MiB without it.
    static func memoryRefusal(_ bytes: Int, limit: Int, heldBesidesPixels: Int?) -> DecodeError? {
        var required = bytes
        if let held = heldBesidesPixels { required = DecodeMemoryEstimate.sum(required, DecodeMemoryEstimate.sum(held, limit / 16)) }
        return required > limit ? .exceedsMemoryLimit(requiredBytes: required, limitBytes: limit) : nil
    }

    /// Anonymous resident memory less the live and pooled pixel buffers (which caches give back
    /// and apps release), after returning the heap glibc keeps freed; nil where /proc is missing.
    static func nonPixelResidentBytes() -> Int? {
        _ = imago_heap_trim()
        guard let resident = ResidentMemory.anonymousBytes(root: "/") else { return nil }
        return max(0, resident - PixelMemory.liveBytes - PixelMemory.retainedBytes)
    }
}

extension Payload.Storage {
    /// What decoding these bytes will need, from their header alone.
    func memoryEstimate(options: DecodeOptions) throws(DecodeError) -> DecodeMemoryEstimate {
        switch self {
        case .data(let data): try ImageDecoder.memoryEstimate(data, options: options)
        case .file(let url): try ImageDecoder.memoryEstimate(contentsOfFile: url.path, options: options)
        }
    }
}
