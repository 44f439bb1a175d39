import Foundation
import Imago

/// The file system the disk scenarios write to (the temporary directory's), for the report's
/// machine table. On one machine a cold disk cache cost 1.6× the raw control on tmpfs, 2.3–2.6×
/// on a journaled ext4 and 4.4–4.7× on an ext4 without a journal (Reports/measurements.md), so
/// a disk row means little without it.
enum TemporaryFileSystem {
    /// The temporary directory's file system, read from /proc: e.g. "ext4, no journal (/dev/vda
    /// at /: rw,relatime,discard)"; nil when /proc/self/mountinfo cannot be read.
    static func current() -> String? {
        guard let mountinfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        let path = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        return describe(path: path, mountinfo: mountinfo,
                        journals: try? FileManager.default.contentsOfDirectory(atPath: "/proc/fs/jbd2"))
    }

    /// `path`'s mount in `mountinfo`, with its mount options and then the file system's. `journals`: the names in /proc/fs/jbd2 ("vda-8": one per
    /// journaled device), nil when unknown; an ext4 mount is then described without saying.
    static func describe(path: String, mountinfo: String, journals: [String]?) -> String? {
        guard let mount = MountInfo.mount(containing: path, among: MountInfo.parse(mountinfo).entries) else { return nil }
        var type = mount.fileSystemType
        if type == "ext4", let journals {
            let device = (mount.source as NSString).lastPathComponent
            type += journals.contains { $0.hasPrefix(device + "-") } ? ", journal" : ", no journal"
        }
        // The mount's options, then the file system's own ("discard", a tmpfs's size) not
        // already said.
        let options = mount.mountOptions + mount.superOptions.filter { !mount.mountOptions.contains($0) }
        return "\(type) (\(mount.source) at \(mount.mountPoint): \(options.joined(separator: ",")))"
    }
}
