import Foundation
import Sluice
import SluiceFormats

/// The property-list workloads: `propertyList()`, which parses XML and binary lists itself,
/// against `PropertyListDecoder` into `PropertyListObject` (what it did before, trying each
/// value's kind in turn) and `PropertyListSerialization` (Core Foundation's parser, in full
/// Foundation).
extension ParsersBenchmark {
    /// Counts the values of a tree, as the JSON and XML counts do.
    static func count(_ object: PropertyListObject) -> Int {
        switch object {
        case .array(let elements): 1 + elements.reduce(0) { $0 + count($1) }
        case .dictionary(let entries): 1 + entries.values.reduce(0) { $0 + count($1) }
        default: 1
        }
    }

    /// Counts the values Core Foundation returns: its dictionaries arrive keyed by `AnyHashable`,
    /// and are counted so rather than cast (a cast to `[String: Any]` would copy each one).
    static func countPropertyList(_ object: Any) -> Int {
        if let array = object as? [Any] { return 1 + array.reduce(0) { $0 + countPropertyList($1) } }
        if let dictionary = object as? [AnyHashable: Any] {
            return 1 + dictionary.values.reduce(0) { $0 + countPropertyList($1) }
        }
        return 1
    }

    /// The three ways of reading a property list, for any of its formats.
    static var propertyListParsers: [(name: String, key: String, parse: (Data) -> Int)] {
        [
            (
                "Sluice propertyList()", "sluice_ms",
                { count(try! PropertyListResponseSerializer().serialize(response($0, type: "application/x-plist"))) }
            ),
            (
                "PropertyListDecoder → PropertyListObject", "propertylistdecoder_ms",
                { count(try! PropertyListDecoder().decode(PropertyListObject.self, from: $0)) }
            ),
            (
                "PropertyListSerialization", "propertylistserialization_ms",
                { countPropertyList(try! PropertyListSerialization.propertyList(from: $0, options: [], format: nil)) }
            ),
        ]
    }

    /// One record of an API response, with a value of every kind.
    static func record(_ id: Int) -> Any {
        let avatar = Data((0..<16).map { UInt8(truncatingIfNeeded: id &+ $0) })
        let address: [String: Any] = ["city": "Zürich", "zip": "8001"]
        let fields: [String: Any] = [
            "id": id, "name": "Person number \(id)", "score": Double(id) / 7, "active": id % 2 == 0,
            "joined": Date(timeIntervalSince1970: Double(1_600_000_000 + id)), "avatar": avatar,
            "tags": ["a", "bé"], "address": address,
        ]
        return fields
    }

    /// An API response of 6,000 records as Core Foundation writes it, XML (about 3 MiB) and
    /// binary, and a hostile XML list: 1,000 integers inside 500 arrays.
    static var propertyListWorkloads: [Workload] {
        let records: [Any] = (0..<6_000).map(record)
        let xml = try! PropertyListSerialization.data(fromPropertyList: records, format: .xml, options: 0)
        let binary = try! PropertyListSerialization.data(fromPropertyList: records, format: .binary, options: 0)
        let integers = String(repeating: "<integer>7</integer>", count: 1_000)
        let hostile = Data(
            (#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + String(repeating: "<array>", count: 500)
                + integers + String(repeating: "</array>", count: 500) + "</plist>").utf8)
        return [
            Workload(
                title: "XML property list, \(formatted(Double(xml.count) / 1_048_576, decimals: 1)) MiB",
                key: "plist_xml", document: xml, parsers: propertyListParsers),
            Workload(
                title:
                    "Binary property list of the same records, \(formatted(Double(binary.count) / 1_048_576, decimals: 1)) MiB",
                key: "plist_binary", document: binary, parsers: propertyListParsers),
            Workload(
                title: "XML property list, 1,000 integers inside 500 arrays (\(hostile.count) bytes)",
                key: "plist_deep", document: hostile, parsers: propertyListParsers),
        ]
    }
}
