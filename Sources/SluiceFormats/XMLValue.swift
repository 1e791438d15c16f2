import Sluice

/// An XML element, as `xml()` delivers it: a small Sendable tree of names, attributes, children and text.
///
///     let title = try await client.get("feed.xml").xml().value["channel"]?["title"]?.text
public struct XMLValue: Sendable, Hashable {
    /// The element's qualified name, e.g. `channel` or `atom:link`.
    public var name: String
    /// The attributes, by qualified name.
    public var attributes: [String: String]
    /// The child elements, in document order.
    public var children: [XMLValue]
    /// The character data directly inside the element (CDATA included), with surrounding whitespace trimmed.
    public var text: String

    /// Creates an element.
    public init(name: String, attributes: [String: String] = [:], children: [XMLValue] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child element named `name`, if any.
    public subscript(name: String) -> XMLValue? {
        children.first { $0.name == name }
    }

    /// Every child element named `name`, in document order.
    public func children(named name: String) -> [XMLValue] {
        children.filter { $0.name == name }
    }
}
