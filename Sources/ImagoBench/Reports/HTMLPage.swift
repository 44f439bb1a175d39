import Foundation

/// The rules every HTML page the bench writes shares (report.html, comparison.html): one
/// stylesheet, one escaper, one page frame, so the pages look and escape alike. The pages are
/// XHTML-compatible (every element closed) so a plain XML check can read them, and
/// self-contained: inline CSS, no scripts, nothing fetched.
enum HTMLPage {
    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}table{border-collapse:collapse;margin:0.5em 0}\
        th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f2f2f2}\
        td.n{text-align:right;font-variant-numeric:tabular-nums}tr.worse,tr.removed,tr.miss{background:#fde2e2}\
        tr.better,tr.added,tr.pass{background:#e2f5e4}tr.skipped,tr.too-few-samples,tr.reference,tr.not-measured{color:#777}\
        code{background:#f4f4f4}.noise{background:#fff4d6;padding:0.5em}svg{max-width:100%;height:auto;display:block}
        """

    /// Text and attribute escaping (`&`, `<`, `>`, `"`).
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The page: doctype, UTF-8, title, the stylesheet, then `body` (already HTML).
    static func document(title: String, body: String) -> String {
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>\(escape(title))</title>"
            + "<style>\(style)</style></head><body>\n<h1>\(escape(title))</h1>\n" + body + "</body></html>\n"
    }

    /// A table: headings, then rows of (css class, cells); `numeric` column indices align right.
    static func table(_ headings: [String], _ rows: [(css: String, cells: [String])], numeric: Set<Int> = []) -> String {
        var text = "<table>\n<tr>" + headings.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            text += (row.css.isEmpty ? "<tr>" : "<tr class=\"\(escape(row.css))\">") + row.cells.enumerated().map { index, cell in
                numeric.contains(index) ? "<td class=\"n\">\(escape(cell))</td>" : "<td>\(escape(cell))</td>"
            }.joined() + "</tr>\n"
        }
        return text + "</table>\n"
    }

    /// The Markdown the report's sections already produce (tables, bullets, paragraphs, `**bold**`,
    /// `` `code` ``) as HTML, so report.md and report.html say the same thing from one source.
    static func markdown(_ markdown: String) -> String {
        var out: [String] = []
        var table: [[String]] = []
        var list: [String] = []
        func flush() {
            if !table.isEmpty {
                let body = table.dropFirst().filter { !$0.allSatisfy { $0.allSatisfy { "-: ".contains($0) } } }
                out.append("<table>\n<tr>" + table[0].map { "<th>\(inline($0))</th>" }.joined() + "</tr>\n"
                           + body.map { "<tr>" + $0.map { "<td>\(inline($0))</td>" }.joined() + "</tr>\n" }.joined() + "</table>")
                table = []
            }
            if !list.isEmpty {
                out.append("<ul>" + list.map { "<li>\(inline($0))</li>" }.joined() + "</ul>")
                list = []
            }
        }
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("|") {
                if !list.isEmpty { flush() }
                table.append(line.dropFirst().split(separator: "|", omittingEmptySubsequences: false).dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) })
            } else if line.hasPrefix("- ") || line.hasPrefix("* ") {
                if !table.isEmpty { flush() }
                list.append(String(line.dropFirst(2)))
            } else {
                flush()
                if line.hasPrefix("#") {
                    out.append("<h3>\(inline(String(line.drop { $0 == "#" || $0 == " " })))</h3>")
                } else if !line.isEmpty {
                    out.append("<p>\(inline(line))</p>")
                }
            }
        }
        flush()
        return out.joined(separator: "\n") + "\n"
    }

    /// Escapes, then turns `**x**` into <strong> and `` `x` `` into <code> (pairs only).
    static func inline(_ text: String) -> String {
        var result = escape(text)
        for (marker, tag) in [("**", "strong"), ("`", "code")] {
            var parts = result.components(separatedBy: marker)
            guard parts.count >= 3 else { continue }
            var joined = parts.removeFirst()
            for (index, part) in parts.enumerated() {
                let opening = index % 2 == 0
                joined += (opening && index == parts.count - 1) ? marker + part : (opening ? "<\(tag)>" : "</\(tag)>") + part
            }
            result = joined
        }
        return result
    }
}
