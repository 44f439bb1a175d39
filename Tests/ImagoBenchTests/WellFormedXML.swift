/// A small well-formedness check for the SVG the report writes (FoundationXML would pull in
/// libxml2, which a fresh CI machine may lack): tags balance and nest, attribute values are
/// quoted, and text and attributes use only the five predefined entities. Returns the root
/// element's name and every element name in document order, or nil when malformed.
enum WellFormedXML {
    static func elements(_ text: String) -> (root: String, all: [String])? {
        var stack: [String] = []
        var all: [String] = []
        var root: String?
        var index = text.startIndex
        func entitiesOK(_ fragment: Substring) -> Bool {
            var rest = fragment[...]
            while let amp = rest.firstIndex(of: "&") {
                let tail = rest[amp...]
                guard let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].first(where: { tail.hasPrefix($0) }) else { return false }
                rest = tail.dropFirst(known.count)
            }
            return !fragment.contains("<")
        }
        while index < text.endIndex {
            guard let open = text[index...].firstIndex(of: "<") else {
                return stack.isEmpty && entitiesOK(text[index...]) ? root.map { ($0, all) } : nil
            }
            guard entitiesOK(text[index..<open]), let close = text[open...].firstIndex(of: ">") else { return nil }
            let tag = text[text.index(after: open)..<close]
            index = text.index(after: close)
            if tag.hasPrefix("?") { continue }   // XML declaration
            if tag.hasPrefix("/") {
                guard stack.popLast() == String(tag.dropFirst()) else { return nil }
                continue
            }
            let selfClosing = tag.hasSuffix("/")
            let body = selfClosing ? tag.dropLast() : tag
            let name = String(body.prefix { $0 != " " && $0 != "\n" })
            guard !name.isEmpty, attributesOK(body.dropFirst(name.count)) else { return nil }
            if stack.isEmpty {
                guard root == nil else { return nil }   // one root only
                root = name
            }
            all.append(name)
            if !selfClosing { stack.append(name) }
        }
        return stack.isEmpty ? root.map { ($0, all) } : nil
    }

    /// ` a="1" b="x &amp; y"`: names, `=`, double-quoted values without raw `<` or stray `&`.
    private static func attributesOK(_ text: Substring) -> Bool {
        var rest = text.drop { $0 == " " || $0 == "\n" }
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else { return false }
            let valueStart = rest.index(equals, offsetBy: 2)
            guard let valueEnd = rest[valueStart...].firstIndex(of: "\"") else { return false }
            let value = rest[valueStart..<valueEnd]
            if value.contains("<") { return false }
            var check = value[...]
            while let amp = check.firstIndex(of: "&") {
                let tail = check[amp...]
                guard let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].first(where: { tail.hasPrefix($0) }) else { return false }
                check = tail.dropFirst(known.count)
            }
            rest = rest[rest.index(after: valueEnd)...].drop { $0 == " " || $0 == "\n" }
        }
        return true
    }
}
