import Foundation
import Imago

extension ImageSource {
    /// A URL when the text names a scheme (`http://`, `HTTPS://`, `file:`, `ftp://`...: the
    /// pipeline fetches http(s), reads file URLs locally and refuses other schemes with a clear
    /// error); a local path otherwise.
    init(argument text: String) {
        if let url = URL(string: text), let scheme = url.scheme?.lowercased(),
           text.contains("://") || scheme == "file" {
            self = .url(url)
            return
        }
        self = .file(URL(fileURLWithPath: text))
    }
}
