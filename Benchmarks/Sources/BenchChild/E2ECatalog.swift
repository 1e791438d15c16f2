/// The JSON document of the end-to-end suite's decode workload: a typical API response of about
/// 1 KB, with nested objects, arrays, strings, numbers and booleans.
public struct E2ECatalog: Codable, Equatable, Sendable {
    /// One line of the catalog.
    public struct Item: Codable, Equatable, Sendable {
        /// The stock-keeping unit, e.g. `SKU-10037`.
        public var sku: String
        /// The item's name, for people.
        public var title: String
        /// The price, with cents.
        public var price: Double
        /// How many are in stock.
        public var quantity: Int
        /// Whether it can be ordered now.
        public var isAvailable: Bool
        /// Free-form labels.
        public var tags: [String]
    }

    /// The catalog's number.
    public var id: Int
    /// The catalog's title.
    public var name: String
    /// When it last changed, as ISO 8601 text.
    public var updatedAt: String
    /// Its lines.
    public var items: [Item]

    /// The document nginx serves; clients check what they decode against it.
    public static let sample = E2ECatalog(
        id: 4_711, name: "Spring catalogue", updatedAt: "2026-11-23T09:30:00Z",
        items: (0..<7).map { index in
            Item(
                sku: "SKU-\(10_000 + index * 37)", title: "Item number \(index) of the spring catalogue",
                price: Double(index * 125 + 99) / 100, quantity: index * 3, isAvailable: index % 3 != 0,
                tags: ["spring", index.isMultiple(of: 2) ? "even" : "odd"])
        })
}
