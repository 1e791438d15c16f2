/// The JSON document of the end-to-end suite's decode workload: a typical API response of about
/// 1 KB, with nested objects, arrays, strings, numbers and booleans.
struct E2ECatalog: Codable, Equatable, Sendable {
    /// One line of the catalog.
    struct Item: Codable, Equatable, Sendable {
        var sku: String
        var title: String
        var price: Double
        var quantity: Int
        var isAvailable: Bool
        var tags: [String]
    }

    var id: Int
    var name: String
    var updatedAt: String
    var items: [Item]

    /// The document nginx serves; clients check what they decode against it.
    static let sample = E2ECatalog(
        id: 4_711, name: "Spring catalogue", updatedAt: "2026-11-23T09:30:00Z",
        items: (0..<7).map { index in
            Item(
                sku: "SKU-\(10_000 + index * 37)", title: "Item number \(index) of the spring catalogue",
                price: Double(index * 125 + 99) / 100, quantity: index * 3, isAvailable: index % 3 != 0,
                tags: ["spring", index.isMultiple(of: 2) ? "even" : "odd"])
        })
}
