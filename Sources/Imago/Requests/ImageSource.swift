import Foundation

/// Where an image comes from. Hashable, so app models holding one stay Equatable; URL-based
/// sources are also Codable as a plain JSON string ("https://…" or "file:///…").
public enum ImageSource: Sendable, Hashable {
    /// An http or https URL, fetched by the pipeline's transport.
    case url(URL)
    /// A local file, decoded straight from disk (origin `local`).
    case file(URL)
    /// Encoded bytes already in memory; `id` names them for caching (default: a hash of the bytes).
    case data(Data, id: String)
    /// Pixels that are already decoded; `id` names them for caching.
    case pixels(PixelBuffer, id: String)
    /// Anything else: a provider with a stable id that produces bytes or pixels.
    case custom(CustomImageSource)

    /// Encoded bytes, identified by a SHA-256 of their content.
    public static func data(_ data: Data) -> ImageSource {
        .data(data, id: "sha256:" + SHA256Digest.hex(of: data))
    }

    /// The part of the request key that names the source.
    public var identity: String {
        switch self {
        case .url(let url): "url:" + url.absoluteString
        case .file(let url): "file:" + url.standardizedFileURL.path
        case .data(_, let id): "data:" + id
        case .pixels(_, let id): "pixels:" + id
        case .custom(let source): "custom:" + source.id
        }
    }

    /// Equal when the identities are equal (``identity``): two `.data` sources with one id are the
    /// same image, whatever their bytes.
    public static func == (lhs: ImageSource, rhs: ImageSource) -> Bool { lhs.identity == rhs.identity }
    /// Hashes ``identity``, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

extension ImageSource: Codable {
    /// Decodes from a JSON string: a file URL becomes `.file`, http(s) becomes `.url`.
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a URL: \(text)"))
        }
        switch scheme {
        case "http", "https": self = .url(url)
        case "file": self = .file(url)
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "unsupported URL scheme \(scheme)"))
        }
    }

    /// Encodes URL-based sources as a string; other sources cannot be encoded.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .url(let url), .file(let url): try container.encode(url.absoluteString)
        default:
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                         debugDescription: "only URL sources are Codable"))
        }
    }
}

/// What a custom provider hands back.
public enum ProvidedImage: Sendable {
    /// Encoded PNG, JPEG or WebP bytes, decoded by the pipeline like any other source's.
    case encoded(Data)
    /// Decoded pixels, only scaled down to the request's options.
    case pixels(PixelBuffer)
}

/// A custom image provider: a stable `id` (the cache identity: two providers with one id are
/// the same image) and an async way to produce it.
public struct CustomImageSource: Sendable {
    /// The source's identity (``ImageSource/identity`` is `custom:` + `id`): two providers with one
    /// id are the same image to every cache and to coalescing.
    public let id: String
    /// Produces the image; the pipeline calls it in its own task (not on the main actor), once
    /// for all concurrent loads of one key (SHARE-2) and not at all on a memory hit. A thrown
    /// error fails the load with `.provider` (a `CancellationError` with `.cancelled`).
    public let load: @Sendable () async throws -> ProvidedImage

    /// A provider named `id` whose image `load` produces.
    public init(id: String, load: @escaping @Sendable () async throws -> ProvidedImage) {
        self.id = id
        self.load = load
    }
}
