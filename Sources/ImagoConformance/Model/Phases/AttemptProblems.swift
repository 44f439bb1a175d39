/// What the model leaves to the loader within one attempt (a run of consecutive `loading`
/// phases), judged where it shows: progress (PROGRESS-1) and previews (PREVIEW-1). Neither is
/// required; each is judged only when published.
enum AttemptProblems {
    /// The first attempt whose received bytes go down or pass the expected total, described;
    /// nil when progress is sound.
    static func progress(_ phases: [ObservedPhase]) -> String? {
        var last: Int?
        for phase in phases {
            guard case .loading(let received, let expected, _, _) = phase else { last = nil; continue }
            if let received, let expected, received > expected { return "received \(received) of \(expected)" }
            if let received, let previous = last, received < previous { return "received \(previous), then \(received)" }
            last = received ?? last
        }
        return nil
    }

    /// The first attempt whose previews lose detail when they change (the same preview may come
    /// again with new progress), or one larger than every image in `largest` (a preview is at
    /// most its image's size), described; nil when the previews are sound.
    static func previews(_ phases: [ObservedPhase], largest images: [ImageFingerprint]) -> String? {
        var last: ObservedPreview?
        for phase in phases {
            guard case .loading(_, _, _, let preview) = phase else { last = nil; continue }
            guard let preview, preview != last else { continue }
            if !images.contains(where: { preview.width <= $0.width && preview.height <= $0.height }) {
                return "\(preview) is larger than the image"
            }
            if let previous = last, preview.detail <= previous.detail { return "\(previous), then \(preview)" }
            last = preview
        }
        return nil
    }
}
