/// Content-Type for a served file, from its extension.
///
/// Why a short fixed table: the server serves test corpora of images; anything else is
/// `application/octet-stream`, which is what a real static server would send for it too.
enum MediaTypes {
    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp",
        "gif": "image/gif", "avif": "image/avif", "heic": "image/heic", "heif": "image/heif",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "ico": "image/x-icon",
        "svg": "image/svg+xml", "jxl": "image/jxl", "txt": "text/plain; charset=utf-8",
        "html": "text/html; charset=utf-8", "json": "application/json",
    ]

    /// The media type for `fileName` (case-insensitive extension).
    static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else {
            return "application/octet-stream"
        }
        let ext = fileName[fileName.index(after: dot)...].lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }
}
