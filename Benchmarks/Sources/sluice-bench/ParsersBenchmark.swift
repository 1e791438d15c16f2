import BenchChild
import Foundation
import Sluice
import SluiceFormats

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What Sluice's own JSON, XML and property-list parsers cost against Foundation's
/// (`JSONSerialization`, `XMLParser`, `PropertyListSerialization`) and against decoding `JSONValue`
/// and `PropertyListObject` through `JSONDecoder` and `PropertyListDecoder`, which `json()` and
/// `propertyList()` did before they had their own parsers: the same documents, in memory, parsed
/// side by side (the property lists in `ParsersBenchmark+PropertyList.swift`).
enum ParsersBenchmark: Suite {
    static let name = "parsers"
    static let summary = "json(), xml() and propertyList() parsing: ms per document against Foundation's parsers"

    /// One document and the ways of parsing it, each returning a count that must agree.
    struct Workload {
        let title: String
        let key: String
        let document: Data
        /// Parsers by name; the first is Sluice's.
        let parsers: [(name: String, key: String, parse: (Data) -> Int)]
    }

    static func response(_ body: Data, type: String) -> Response {
        Response(
            status: 200, headers: ["Content-Type": type], body: body,
            request: Request(url: URL(string: "http://bench.invalid/")!))
    }

    /// Counts the values of a tree, so that every parser's work is checked and kept.
    static func count(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + elements.reduce(0) { $0 + count($1) }
        case .object(let members): 1 + members.values.reduce(0) { $0 + count($1) }
        default: 1
        }
    }

    static func count(_ object: Any) -> Int {
        if let array = object as? [Any] { return 1 + array.reduce(0) { $0 + count($1) } }
        if let dictionary = object as? [String: Any] { return 1 + dictionary.values.reduce(0) { $0 + count($1) } }
        return 1
    }

    static func count(_ element: XMLValue) -> Int { 1 + element.children.reduce(0) { $0 + count($1) } }

    /// Counts the elements `XMLParser` reports.
    final class ElementCounter: NSObject, XMLParserDelegate {
        var elements = 0
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            elements += 1
        }
    }

    static var workloads: [Workload] {
        var records: [String] = []
        var size = 0
        while size < 5 << 20 {
            let record =
                #"{"id":\#(records.count),"name":"Person number \#(records.count)","score":\#(Double(records.count) / 7),"#
                + #""active":\#(records.count % 2 == 0),"tags":["a","b\u00e9"],"address":{"city":"Zürich","zip":null}}"#
            records.append(record)
            size += record.utf8.count
        }
        let api = Data(("[" + records.joined(separator: ",") + "]").utf8)
        let strings = Array(repeating: #""s""#, count: 1_000).joined(separator: ",")
        let hostile = Data((String(repeating: "[", count: 500) + strings + String(repeating: "]", count: 500)).utf8)
        var entries = ""
        var entryCount = 0
        while entries.utf8.count < 7 << 20 {
            entryCount += 1
            entries +=
                #"<entry id="\#(entryCount)"><title>Entry &amp; more</title><link href="http://example.com/a?b=c"/>"#
                + "<summary><![CDATA[Some <b>bold</b> text]]></summary><author><name>Zoë</name></author></entry>\n"
        }
        let feed = Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed>\n" + entries + "</feed>").utf8)

        let json: [(name: String, key: String, parse: (Data) -> Int)] = [
            (
                "Sluice json()", "sluice_ms",
                { try! count(JSONResponseSerializer().serialize(response($0, type: "application/json"))) }
            ),
            (
                "JSONDecoder → JSONValue", "jsondecoder_jsonvalue_ms",
                { try! count(JSONDecoder().decode(JSONValue.self, from: $0)) }
            ),
            (
                "JSONSerialization", "jsonserialization_ms",
                { try! count(JSONSerialization.jsonObject(with: $0, options: [.fragmentsAllowed])) }
            ),
        ]
        let xml: [(name: String, key: String, parse: (Data) -> Int)] = [
            (
                "Sluice xml()", "sluice_ms",
                { count(try! XMLResponseSerializer().serialize(response($0, type: "application/xml"))) }
            ),
            (
                "XMLParser (no tree)", "xmlparser_ms",
                {
                    let counter = ElementCounter()
                    let parser = XMLParser(data: $0)
                    parser.delegate = counter
                    precondition(parser.parse())
                    return counter.elements
                }
            ),
        ]
        return [
            Workload(title: "JSON API response, \(api.count >> 20) MiB", key: "json_api", document: api, parsers: json),
            Workload(
                title: "JSON, 1,000 strings inside 500 arrays (\(hostile.count) bytes)", key: "json_deep",
                document: hostile, parsers: json),
            Workload(title: "XML feed, \(feed.count >> 20) MiB", key: "xml_feed", document: feed, parsers: xml),
        ] + propertyListWorkloads
    }

    static func run(_ options: Options) -> SuiteReport {
        let rounds = max(3, options.rounds)
        var text = ["Parsers: documents in memory, \(rounds) rounds interleaved, median ms per document", ""]
        var members: [(String, JSON)] = []
        var isConsistent = true
        for workload in workloads {
            var samples = workload.parsers.map { _ in [Double]() }
            var counts = workload.parsers.map { $0.parse(workload.document) }  // warm-up
            for round in 0..<rounds {
                note("parsers: \(workload.key) round \(round + 1)/\(rounds)")
                for index in workload.parsers.indices {
                    let (nanoseconds, count) = Measure.time { workload.parsers[index].parse(workload.document) }
                    samples[index].append(Double(nanoseconds) / 1e6)
                    counts[index] = count
                }
            }
            // The same tree read by each: one count of values (XMLParser's: elements, as Sluice's).
            if Set(counts).count != 1 { isConsistent = false }
            let medians = samples.map(Measure.median)
            var table = TextTable(header: ["parser", "ms", "÷ Sluice's time"])
            for (index, parser) in workload.parsers.enumerated() {
                table.rows.append([
                    parser.name, formatted(medians[index], decimals: 2),
                    formatted(medians[index] / medians[0], decimals: 2) + "×",
                ])
            }
            text += [workload.title + " (values: \(counts[0]))", table.rendered, ""]
            members.append(
                (
                    workload.key,
                    .object(
                        workload.parsers.indices.map { index in
                            (workload.parsers[index].key, .number(medians[index]))
                        })
                ))
        }
        return SuiteReport(text: text.joined(separator: "\n"), json: .object(members), isConsistent: isConsistent)
    }
}
