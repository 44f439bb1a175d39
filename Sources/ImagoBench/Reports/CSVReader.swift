/// Reads the RFC 4180 CSV that ``CSVWriter`` and ``SamplesCSV`` write: comma-separated fields,
/// a field in double quotes may hold commas, quotes (doubled) and line breaks.
public enum CSVReader {
    /// Why a text is not CSV.
    public struct MalformedCSV: Error, Equatable, Sendable {
        /// The 1-based line where the problem starts.
        public let line: Int
        /// What is wrong there.
        public let reason: String
    }

    /// The records of `text`, each a list of fields; a final line break ends the last record
    /// rather than starting an empty one, and `\r\n` is accepted as a line break.
    public static func records(_ text: String) throws(MalformedCSV) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false, afterQuote = false, line = 1, quoteLine = 1
        var characters = text.makeIterator()
        var pending: Character?
        while let character = pending ?? characters.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = characters.next() {
                        if next == "\"" { field.append("\""); continue }
                        pending = next
                    }
                    quoted = false
                    afterQuote = true
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case ",":
                record.append(field)
                field = ""
                afterQuote = false
            case "\n", "\r\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
                afterQuote = false
                line += 1
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
                quoteLine = line
            default:
                if afterQuote || character == "\"" {
                    throw MalformedCSV(line: line, reason: "a quote inside an unquoted field or after a closing quote")
                }
                field.append(character)
            }
        }
        if quoted { throw MalformedCSV(line: quoteLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || !record.isEmpty || afterQuote {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
