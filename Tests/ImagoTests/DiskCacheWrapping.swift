import Foundation
import Imago

/// A test's disk cache that changes what a store does and hands everything else to a real
/// `DiskCache`: conformers write only the two `store` requirements.
protocol DiskCacheWrapping: ImageDiskCaching {
    var cache: DiskCache { get }
}

extension DiskCacheWrapping {
    func entry(forKey key: String) -> DiskCache.Entry? { cache.entry(forKey: key) }
    func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool {
        try cache.refresh(forKey: key, metadata: metadata, revalidated: revalidated)
    }
    func removeEntry(forKey key: String) throws { try cache.removeEntry(forKey: key) }
    func makeTemporaryFileURL() -> URL { cache.makeTemporaryFileURL() }
    func partialDownloadFiles(forKey key: String) -> DiskCache.PartialDownloadFiles { cache.partialDownloadFiles(forKey: key) }
    var sizeLimit: Int { cache.sizeLimit }
}
