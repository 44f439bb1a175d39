import Logging

/// The disk stage's decisions, as `DiskStage` makes them. The three a store or a revalidation
/// makes on the disk stage's own threads (stored, not stored, revalidated) go through `report`,
/// so they are made on the load's task (`DeferredReports`).
extension PipelineDiagnostics {
    /// What a lookup found for `sourceKey` and what the HTTP cache policy makes of it: a miss,
    /// a fresh entry, one to revalidate, or one to fetch again (stale, with no validator).
    func diskLookedUp(_ sourceKey: String, _ lookup: DiskLookup) {
        logger.trace("Disk cache lookup", metadata: {
            let decision = if lookup.hadEntry != true { "miss" }
                else if lookup.fresh != nil { "fresh" }
                else if lookup.rememberedFailure != nil { "rememberedFailure" }
                else if lookup.staleRevalidating != nil { "staleWhileRevalidate" }
                else if lookup.revalidating != nil { "revalidate" }
                else { "refetch" }
            return ["source": "\(sourceKey)", "decision": "\(decision)"]
        }())
    }

    /// A fresh entry served the load without a request.
    func diskServedFresh(_ sourceKey: String) {
        record { $0.diskHits += 1; $0.diskFreshHits += 1 }
        emit(.diskFresh, sourceKey)
        metrics?.cacheHits[.diskFresh]?.increment()
        logger.debug("Disk cache hit (fresh)", metadata: ["source": "\(sourceKey)"])
    }

    /// A fresh remembered failure (404 or 410) failed the load without a request.
    func diskRepeatedFailure(_ sourceKey: String, status: Int) {
        record { $0.diskRememberedFailures += 1 }
        emit(.rememberedFailure, sourceKey)
        logger.debug("Disk cache repeated a remembered failure", metadata: ["source": "\(sourceKey)", "status": "\(status)"])
    }

    /// A stale entry served the load, as `outcome` (`.staleRevalidating` or `.staleIfError`)
    /// says the server allowed. Counted apart: `diskHits` stays the two tiers of fresh content.
    func diskServedStale(_ sourceKey: String, _ outcome: DiskCacheOutcome) {
        record { $0.diskStaleHits += 1 }
        logger.debug("Disk cache hit (stale)", metadata: ["source": "\(sourceKey)", "outcome": "\(outcome)"])
    }

    /// The server answered 304 to a revalidation and the stored bytes serve the load.
    func diskRevalidated(_ sourceKey: String) {
        report { diagnostics in
            diagnostics.record { $0.diskHits += 1; $0.diskRevalidations += 1 }
            diagnostics.emit(.revalidated, sourceKey)
            diagnostics.metrics?.cacheHits[.diskRevalidated]?.increment()
            diagnostics.logger.debug("Disk cache entry revalidated (304)", metadata: ["source": "\(sourceKey)"])
        }
    }

    /// A response was written to disk, as a new entry or in place of one for the same URL.
    func diskStored(_ sourceKey: String, replaced: Bool) {
        report { diagnostics in
            diagnostics.record { replaced ? ($0.diskReplacements += 1) : ($0.diskStores += 1) }
            diagnostics.emit(.cacheStore, sourceKey)
            if let metrics = diagnostics.metrics {
                (replaced ? metrics.diskStores.replaced : metrics.diskStores.stored).increment()
            }
            diagnostics.logger.debug("Stored in the disk cache",
                                     metadata: ["source": "\(sourceKey)", "outcome": replaced ? "replaced" : "stored"])
        }
    }

    /// A response was kept off the disk (and an older entry for the URL removed), for `reason`.
    func diskNotStored(_ sourceKey: String, _ reason: DiskCacheOutcome.NotStoredReason) {
        report { diagnostics in
            diagnostics.record { $0.diskNotStored += 1 }
            diagnostics.emit(.notStored, sourceKey)
            diagnostics.metrics?.diskNotStored[reason]?.increment()
            diagnostics.logger.debug("Not stored in the disk cache",
                                     metadata: ["source": "\(sourceKey)", "reason": "\(reason.rawValue)"])
        }
    }
}
