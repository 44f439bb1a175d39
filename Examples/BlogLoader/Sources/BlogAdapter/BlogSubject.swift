import ImagoConformance

/// The blog loader as a subject: what the conformance suite (BlogConformance) and the loader
/// bench (BlogBench) both run, declared once.
public enum BlogSubject {
    /// `blog-loader`: memory and disk caches and target sizes, its known failures expected.
    public static let subject = ConformanceSubject(
        name: "blog-loader", capabilities: [.memoryCache, .diskCache, .targetSize],
        expectedToFail: ExpectedScore.knownFailures.map(\.rule)
    ) { context in
        try BlogLoaderAdapter(context: context)
    }
}
