/// A horizontal grouped bar chart as a self-contained SVG document, written by hand so the
/// report needs no plotting dependency. Each group is a row label with one bar per series;
/// bars are scaled to the largest value and labelled with their number.
public struct SVGBarChart: Sendable {
    public struct Group: Sendable {
        public let label: String
        /// (series name, value); a nil value draws no bar and says "n/a".
        public let bars: [(series: String, value: Double?)]
        public init(label: String, bars: [(series: String, value: Double?)]) {
            self.label = label
            self.bars = bars
        }
    }

    public let title: String
    /// Printed after every value and on the axis, e.g. "MP/s".
    public let unit: String
    public let groups: [Group]

    /// Bar colours, cycled per series (colour-blind-safe Okabe–Ito palette).
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]
    static let plotWidth = 420.0, valueWidth = 90.0
    /// The label column's width: 230 px, or wider (up to 560) when a group's label needs it, at
    /// about 6.5 px per character of 11 px sans-serif; a label longer still is cut with "…" and
    /// carries its whole text as a tooltip.
    static let minimumLabelWidth = 230.0, maximumLabelWidth = 560.0, characterWidth = 6.5
    static let barHeight = 14.0, groupGap = 10.0, top = 40.0, legendRow = 18.0

    public init(title: String, unit: String, groups: [Group]) {
        self.title = title
        self.unit = unit
        self.groups = groups
    }

    var seriesNames: [String] {
        var names: [String] = []
        for group in groups { for bar in group.bars where !names.contains(bar.series) { names.append(bar.series) } }
        return names
    }

    /// How wide the label column is for these groups' labels.
    var labelWidth: Double {
        let longest = Double(groups.map(\.label.count).max() ?? 0)
        return min(max(Self.minimumLabelWidth, longest * Self.characterWidth + 12), Self.maximumLabelWidth)
    }

    /// `label` as drawn: whole when it fits the column, else cut to fit and ended with "…".
    func fitted(_ label: String) -> String {
        let fits = Int((Self.maximumLabelWidth - 12) / Self.characterWidth)
        return label.count <= fits ? label : String(label.prefix(fits - 1)) + "…"
    }

    public var svg: String {
        let series = seriesNames, labelWidth = labelWidth
        let maximum = groups.flatMap { $0.bars.compactMap(\.value) }.filter(\.isFinite).max() ?? 0
        let scale = maximum > 0 ? Self.plotWidth / maximum : 0
        let width = labelWidth + Self.plotWidth + Self.valueWidth
        var y = Self.top
        var body: [String] = []
        for group in groups {
            let groupHeight = Double(max(group.bars.count, 1)) * Self.barHeight
            let label = fitted(group.label)
            body.append(text(x: labelWidth - 6, y: y + groupHeight / 2 + 4, label, anchor: "end",
                             tooltip: label == group.label ? nil : group.label))
            for bar in group.bars {
                let colour = Self.palette[(series.firstIndex(of: bar.series) ?? 0) % Self.palette.count]
                if let value = bar.value, value.isFinite {
                    let length = max(value * scale, 0.5)
                    body.append("<rect x=\"\(f(labelWidth))\" y=\"\(f(y + 1))\" width=\"\(f(length))\" height=\"\(f(Self.barHeight - 2))\" fill=\"\(colour)\"><title>\(escape("\(bar.series): \(number(value)) \(unit)"))</title></rect>")
                    body.append(text(x: labelWidth + length + 4, y: y + Self.barHeight - 3, number(value)))
                } else {
                    body.append(text(x: labelWidth + 4, y: y + Self.barHeight - 3, "n/a"))
                }
                y += Self.barHeight
            }
            y += Self.groupGap
        }
        var legend: [String] = []
        for (index, name) in series.enumerated() {
            let ly = y + 6 + Double(index) * Self.legendRow
            legend.append("<rect x=\"\(f(labelWidth))\" y=\"\(f(ly))\" width=\"12\" height=\"12\" fill=\"\(Self.palette[index % Self.palette.count])\"/>")
            legend.append(text(x: labelWidth + 18, y: ly + 10, name))
        }
        let height = y + 12 + Double(series.count) * Self.legendRow
        return ([
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"11\">",
            "<rect x=\"0\" y=\"0\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"white\"/>",
            "<text x=\"\(f(width / 2))\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">\(escape("\(title) (\(unit))"))</text>",
            "<line x1=\"\(f(labelWidth))\" y1=\"\(f(Self.top - 4))\" x2=\"\(f(labelWidth))\" y2=\"\(f(y - Self.groupGap + 4))\" stroke=\"#444\"/>",
        ] + body + legend + ["</svg>"]).joined(separator: "\n") + "\n"
    }

    private func text(x: Double, y: Double, _ content: String, anchor: String = "start", tooltip: String? = nil) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\">"
            + (tooltip.map { "<title>\(escape($0))</title>" } ?? "") + "\(escape(content))</text>"
    }

    private func f(_ value: Double) -> String { CSVWriter.number((value * 10).rounded() / 10) }

    private func number(_ value: Double) -> String {
        abs(value) >= 100 ? String(format: "%.0f", value) : abs(value) >= 1 ? String(format: "%.1f", value) : String(format: "%.3f", value)
    }

    /// XML text/attribute escaping.
    public static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    private func escape(_ text: String) -> String { Self.escape(text) }
}
