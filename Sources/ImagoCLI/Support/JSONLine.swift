import Foundation

/// One JSON object per line with keys in the order they were added, which is the documented
/// order of the CLI's output (JSONEncoder would sort or scramble them).
struct JSONLine {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String) { fields.append("\(Self.quote(key)):\(Self.quote(value))") }
    mutating func add(_ key: String, _ value: Int) { fields.append("\(Self.quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Bool) { fields.append("\(Self.quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Double, decimals: Int = 3) {
        fields.append("\(Self.quote(key)):\(String(format: "%.\(decimals)f", value))")
    }
    mutating func add(_ key: String, object: JSONLine) { fields.append("\(Self.quote(key)):\(object.text)") }
    /// `null` when nil.
    mutating func add(_ key: String, _ value: Int?) {
        fields.append("\(Self.quote(key)):\(value.map(String.init) ?? "null")")
    }
    /// `null` when nil.
    mutating func add(_ key: String, _ value: String?) {
        fields.append("\(Self.quote(key)):\(value.map(Self.quote) ?? "null")")
    }
    mutating func add(_ key: String, strings: [String]) {
        fields.append("\(Self.quote(key)):[" + strings.map(Self.quote).joined(separator: ",") + "]")
    }

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
