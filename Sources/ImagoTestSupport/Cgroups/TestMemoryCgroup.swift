import ImagoBench

/// Real memory cgroups for tests, through the bench's own types: the parent is this process's
/// own memory cgroup as `MemoryCgroupLocator` finds it from /proc/self/cgroup (never the
/// hierarchy's root: the locator refuses it), children are `MemoryCgroupChild`s. Where none can
/// be made (no memory controller, a read-only hierarchy, a root cgroup) the test skips, saying why.
public enum TestMemoryCgroup {
    /// Test children are named `imago-test-<pid>-<random>`; those of a test process that died
    /// before removing them are removed by the next ``makeOrSkip(limitBytes:version:)``.
    public static let namePrefix = "imago-test-"

    /// Why no memory cgroup can be made here, or nil when this process's own can be found.
    public static var unavailableReason: String? {
        switch MemoryCgroupLocator().locate() {
        case .success: nil
        case .failure(let unavailable): unavailable.reason
        }
    }

    /// A child of this process's own memory cgroup limited to `limitBytes` (nil: no limit);
    /// the caller removes it (`MemoryCgroupChild.remove()`). Skips the running test
    /// (``TestSkip``) where none can be made, or where the cgroup is not of `version` (default
    /// nil: either).
    public static func makeOrSkip(limitBytes: Int?, version: CgroupVersion? = nil) throws -> MemoryCgroupChild {
        let parent: MemoryCgroupLocation
        switch MemoryCgroupLocator().locate() {
        case .success(let found): parent = found
        case .failure(let unavailable): try TestSkip.skip("no memory cgroup: \(unavailable.reason)")
        }
        if let version, parent.version != version {
            try TestSkip.skip("this process's memory cgroup is \(parent.version.rawValue), the test needs \(version.rawValue)")
        }
        MemoryCgroupChild.removeStale(under: parent, namePrefix: namePrefix)
        do {
            return try MemoryCgroupChild.make(under: parent, namePrefix: namePrefix, limitBytes: limitBytes)
        } catch let unavailable as CgroupUnavailable {
            try TestSkip.skip("no memory cgroup: \(unavailable.reason)")
        }
    }

    /// The bench's sandbox under this process's own memory cgroup; skips the running test
    /// (``TestSkip``) where there cannot be one.
    public static func sandboxOrSkip() throws -> MemoryCgroupSandbox {
        switch MemoryCgroupSandbox.make() {
        case .success(let sandbox): return sandbox
        case .failure(let unavailable): try TestSkip.skip("no memory cgroup: \(unavailable.reason)")
        }
    }
}
