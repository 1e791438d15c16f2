import BenchChild

/// Statistics over the rounds, beside the clock and memory readings of `BenchChild`'s `Measure`
/// (shared with the child binaries).
extension Measure {
    /// The median of `samples` (the mean of the two middle ones for an even count); 0 when empty.
    static func median(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The smallest of `samples`: the run least disturbed by the rest of the machine; 0 when empty.
    static func best(_ samples: [Double]) -> Double {
        samples.min() ?? 0
    }
}

/// One contender in a workload: runs it and reports the cost of one operation.
struct Client {
    /// The row title in a table.
    let label: String
    /// The key of its median in the JSON report.
    let key: String
    /// How many operations one measured run performs.
    let operations: Int
    /// Runs the workload for the given count of operations; setup and teardown are not timed.
    let run: (_ operations: Int) -> Sample
}

/// The outcome of one timed run.
struct Sample {
    /// Wall time per operation.
    let nanoseconds: Double
    /// How many results the run produced (values observed, subscriptions started, responses read).
    let delivered: Int
    /// A wrapping sum of those results: equal across clients when all did the same work.
    let checksum: Int

    /// The sample of a run of `operations` that took `elapsed` nanoseconds.
    init(elapsed: UInt64, operations: Int, delivered: Int, checksum: Int) {
        self.nanoseconds = Double(elapsed) / Double(operations)
        self.delivered = delivered
        self.checksum = checksum
    }
}

extension Measure {
    /// Runs every client `rounds` times, interleaved, and returns each client's samples.
    ///
    /// A warm-up run of a tenth of the operations comes first, unrecorded, so that page faults and
    /// lazy initialization land outside the measurements. Then each round runs every group, its
    /// clients in an order rotated by one each round, so that no client always runs first (cold
    /// caches) or last (a hot core, a neighbour's build waking up). `progress` is told each round.
    static func compete(
        _ groups: [[Client]],
        rounds: Int,
        progress: (_ round: Int, _ latest: [(Client, Sample)]) -> Void
    ) -> [[(Client, [Sample])]] {
        for client in groups.joined() { _ = client.run(max(1, client.operations / 10)) }
        var samples = groups.map { $0.map { _ in [Sample]() } }
        for round in 0..<rounds {
            var latest: [(Client, Sample)] = []
            for (group, clients) in groups.enumerated() where !clients.isEmpty {
                let pivot = round % clients.count
                for index in Array(clients.indices[pivot...]) + Array(clients.indices[..<pivot]) {
                    samples[group][index].append(clients[index].run(clients[index].operations))
                }
                latest += zip(clients, samples[group]).map { ($0, $1[$1.count - 1]) }
            }
            progress(round, latest)
        }
        return zip(groups, samples).map { Array(zip($0, $1)) }
    }
}

/// Keeps a value alive as far as the optimizer can tell, so the work that produced it is not removed.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A JSON value, enough for benchmark reports: objects keep their keys in insertion order.
enum JSON {
    case number(Double)
    case integer(Int)
    case string(String)
    case bool(Bool)
    case object([(String, JSON)])

    /// The value as compact JSON text on one line.
    var rendered: String {
        switch self {
        case .number(let value):
            // JSON has no NaN or infinity; round to hundredths, which is plenty for ns figures.
            guard value.isFinite else { return "null" }
            let rounded = (value * 100).rounded() / 100
            return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : "\(rounded)"
        case .integer(let value):
            return String(value)
        case .string(let value):
            return JSON.quoted(value)
        case .bool(let value):
            return value ? "true" : "false"
        case .object(let members):
            return "{" + members.map { "\(JSON.quoted($0.0)): \($0.1.rendered)" }.joined(separator: ", ") + "}"
        }
    }

    /// The value as JSON text with each member of an object on a line of its own, indented by two
    /// spaces a level: for files kept in git, whose diffs then show figure by figure.
    func pretty(indent: String = "") -> String {
        guard case .object(let members) = self, !members.isEmpty else { return rendered }
        let inner = indent + "  "
        let lines = members.map { inner + JSON.quoted($0.0) + ": " + $0.1.pretty(indent: inner) }
        return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
    }

    /// `text` as a JSON string literal, with quotes, backslashes and control characters escaped.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A plain-text table with left-aligned first column and right-aligned others.
struct TextTable {
    /// The column titles.
    var header: [String]
    /// The rows, each with as many cells as the header.
    var rows: [[String]] = []

    /// The table as lines of text, columns padded to their widest cell.
    var rendered: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// Formats a number with a fixed count of decimals, without Foundation.
func formatted(_ value: Double, decimals: Int = 1) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = scaled % Int(scale)
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard decimals > 0 else { return sign + String(whole) }
    let digits = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - digits.count) + digits
}

/// `value` with thousands separated by commas, e.g. 10,000,000.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index).isMultiple(of: 3) { out.append(",") }
        out.append(digit)
    }
    return value < 0 ? "-" + out : out
}
