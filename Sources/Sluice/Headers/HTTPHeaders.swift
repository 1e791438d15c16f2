import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An ordered list of HTTP header fields.
///
/// Names compare case-insensitively; the order of fields is kept and a name may repeat (as
/// `Set-Cookie` does). `headers["Content-Type"]` reads the first value of a name, and setting it
/// replaces every field of that name.
public struct HTTPHeaders: Sendable, Equatable, Hashable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// One header field.
    public struct Field: Sendable, Equatable, Hashable {
        /// The name, as given (compared case-insensitively).
        public var name: String
        /// The value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, unless the list still holds a response's lines as received (`raw`).
    private var storedFields: [Field] {
        // Any change may bring a field that was never checked.
        didSet { isKnownValid = false }
    }

    /// A response's header lines as received, until the list is changed: lookups scan them, and
    /// their strings are made only when something needs every field (see `RawHeaderLines`).
    private var raw: RawHeaderLines?

    /// The fields; changing them first turns received lines into fields.
    private var fields: [Field] {
        get { raw?.fields() ?? storedFields }
        _modify {
            if let lines = raw {
                storedFields = lines.fields()
                raw = nil
            }
            yield &storedFields
        }
    }

    /// Whether every field passed the checks a request's headers get before sending (see
    /// `checkedForSending()`), with no change since: a client's default headers are checked once,
    /// not for every request that takes them as they are.
    private(set) var isKnownValid = false

    /// Creates an empty list.
    public init() { storedFields = [] }

    /// Creates a list from fields, keeping their order.
    public init(_ fields: [Field]) { storedFields = fields }

    /// Creates a list from name-value pairs, keeping their order.
    public init(_ pairs: [(String, String)]) { storedFields = pairs.map { Field(name: $0.0, value: $0.1) } }

    /// Creates a list from a dictionary literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        storedFields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// A list of a response's header lines as received (see `RawHeaderLines`).
    init(lines: RawHeaderLines) {
        storedFields = []
        raw = lines
    }

    /// The first value for `name`; setting replaces all fields of that name (nil removes them).
    public subscript(name: String) -> String? {
        get {
            if let raw { return raw.values(for: name, limit: 1).first }
            let stored = storedFields
            return Self.firstIndex(named: name, in: stored).map { stored[$0].value }
        }
        set {
            if let newValue {
                replaceOrAdd(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        if let raw { return raw.values(for: name) }
        // By index: iterating the fields copied each one, retaining and releasing both of its
        // strings (`validate()` looks up a request's `Accept` on every response).
        let stored = storedFields
        var values: [String] = []
        for index in stored.indices where stored[index].name.caseInsensitiveEquals(name) {
            values.append(stored[index].value)
        }
        return values
    }

    /// Whether a field with `name` exists.
    public func contains(_ name: String) -> Bool {
        if let raw { return raw.contains(name) }
        return Self.firstIndex(named: name, in: storedFields) != nil
    }

    /// The index of the first of `fields` named `name` (case-insensitively), read by index: a
    /// closure over the fields (`contains(where:)`, `first(where:)`) copied each field it passed,
    /// retaining and releasing both of its strings.
    private static func firstIndex(named name: String, in fields: [Field]) -> Int? {
        for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) { return index }
        return nil
    }

    /// Makes room for `capacity` fields, so that adding several grows the storage once.
    mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces the first field of `name` in place and removes the others, or appends one.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields[index] = Field(name: name, value: value)
            var seen = false
            fields.removeAll { field in
                guard field.name.caseInsensitiveEquals(name) else { return false }
                defer { seen = true }
                return seen
            }
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Removes every field of `name`.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The same list with `other`'s fields replacing those of the same names here.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for name in Set(other.fields.map { $0.name.lowercased() }) { merged.remove(name: name) }
        merged.fields.append(contentsOf: other.fields)
        return merged
    }

    /// This list with each of `defaults`' fields whose name it does not have yet appended, in their
    /// order, leaving out those named in `skipped` (names compared case-insensitively): a client's
    /// default headers merged into a request's own. The result is known valid when `defaults` is
    /// and this list's fields pass the checks (an invalid one leaves it unmarked, so that preparing
    /// the request names the field).
    ///
    /// One array made, the fields read in place by index: adding the defaults one at a time to a
    /// request's list (a `for` over the fields, a `contains` per name, an `add` per field) copied
    /// each field it looked at, retaining and releasing both strings, ~3,400 instructions a POST.
    func addingAbsent(from defaults: HTTPHeaders, skipping skipped: Set<String>) -> HTTPHeaders {
        let own = fields
        let offered = defaults.fields
        var merged: [Field] = []
        merged.reserveCapacity(own.count + offered.count)
        merged.append(contentsOf: own)
        for index in offered.indices {
            let name = offered[index].name
            if Self.firstIndex(named: name, in: merged) != nil { continue }
            if !skipped.isEmpty, skipped.contains(where: { name.caseInsensitiveEquals($0) }) { continue }
            merged.append(offered[index])
        }
        var result = HTTPHeaders(merged)
        result.isKnownValid =
            defaults.isKnownValid
            && (isKnownValid
                || own.indices.allSatisfy { PreparedRequest.isValidHeader(name: own[$0].name, value: own[$0].value) })
        return result
    }

    /// The number of fields.
    public var count: Int { raw?.count ?? storedFields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { raw?.isEmpty ?? storedFields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The fields as `Name: value` lines.
    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// Lists compare field by field, names case-insensitively.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.hasSameFields(as: rhs) { $0.caseInsensitiveEquals($1) }
    }

    /// Whether both lists hold the same fields with the same text, names in the same case.
    func isIdentical(to other: HTTPHeaders) -> Bool {
        hasSameFields(as: other) { $0 == $1 }
    }

    /// Whether the lists hold the same fields in order, names compared by `namesEqual` and values
    /// exactly. Lists that share their storage (a request that took the client's default headers
    /// as they are) or hold the same received lines are equal without comparing their strings.
    private func hasSameFields(as other: HTTPHeaders, namesEqual: (String, String) -> Bool) -> Bool {
        if raw == nil && other.raw == nil && storedFields.count == other.storedFields.count
            && sharesStorage(with: other)
        {
            return true
        }
        if let a = raw, let b = other.raw, a == b { return true }
        let (a, b) = (fields, other.fields)
        return a.count == b.count && zip(a, b).allSatisfy { namesEqual($0.name, $1.name) && $0.value == $1.value }
    }

    /// The same list, known to pass the checks a request's headers get before sending; throws the
    /// error the first field that fails them would make `prepared()` throw.
    func checkedForSending() throws(SluiceError) -> HTTPHeaders {
        for field in fields { try PreparedRequest.validateHeader(name: field.name, value: field.value) }
        var checked = self
        checked.isKnownValid = true
        return checked
    }

    /// Marks the list as checked, for a caller that checked each field it added to a checked list.
    mutating func markChecked() {
        isKnownValid = true
    }

    /// Whether both lists are the same non-empty array storage.
    private func sharesStorage(with other: HTTPHeaders) -> Bool {
        storedFields.withUnsafeBufferPointer { a in
            other.storedFields.withUnsafeBufferPointer { b in a.baseAddress != nil && a.baseAddress == b.baseAddress }
        }
    }

    /// Hashes names case-insensitively, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names and media types need.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        // Native strings are contiguous: compare their bytes directly (header lookups run many
        // times per request, and iterating two views in step costs several times more).
        if let result = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in Self.asciiCaseInsensitiveEqual(x, y) }
        }), let equal = result {
            return equal
        }
        for (x, y) in zip(a, b) where x != y {
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }

    /// Whether both strings have the same UTF-8 bytes (`==` compares canonical equivalence).
    func hasSameUTF8(as other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        if let result = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }), let same = result {
            return same
        }
        return a.elementsEqual(b)
    }

    /// Whether the string starts with `prefix`, ASCII letters compared in any case.
    func hasCaseInsensitivePrefix(_ prefix: String) -> Bool {
        let count = prefix.utf8.count
        guard utf8.count >= count else { return false }
        if let result = utf8.withContiguousStorageIfAvailable({ x in
            prefix.utf8.withContiguousStorageIfAvailable { y in
                Self.asciiCaseInsensitiveEqual(UnsafeBufferPointer(rebasing: x[..<count]), y)
            }
        }), let starts = result {
            return starts
        }
        return String(decoding: utf8.prefix(count), as: UTF8.self).caseInsensitiveEquals(prefix)
    }

    /// Whether two byte strings are equal with ASCII letters compared in any case (other bytes,
    /// non-ASCII included, must match exactly).
    static func asciiCaseInsensitiveEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            let x = a[i]
            let y = b[i]
            if x == y { continue }
            if (x | 0x20) != (y | 0x20) { return false }
            let lower = x | 0x20
            if lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
        }
        return true
    }
}
