/// Values by ids that a counter hands out (the transport loop's transfers, a client's requests in
/// flight): a hash table with open addressing and a multiplicative hash.
///
/// A `Dictionary` hashed every id with SipHash when a request began and again when it ended: in
/// the transport's table alone that cost about 700 instructions of a small GET's 71,000. The ids
/// are not chosen by an attacker (they come from a counter), so one multiplication spreads them
/// well enough. (Not the id's low bits as they are: the ids in flight are nearly consecutive, which
/// would fill one long run of slots that every removal has to walk.)
///
/// Linear probing; a removal moves later entries of its run back (no tombstones), so a lookup
/// stops at the first empty slot. The table doubles when half full and never shrinks.
struct IDTable<Value> {
    private var slots: [(id: UInt64, value: Value)?]
    /// The slot count minus one (the count is a power of two).
    private(set) var mask: Int
    /// 64 minus the number of bits of a slot index: the hash's top bits pick the slot.
    private var shift: UInt64
    /// How many entries the table holds.
    private(set) var count = 0

    /// An empty table with room for `capacity` entries before it grows.
    init(capacity: Int = 64) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: nil, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    var isEmpty: Bool { count == 0 }

    /// Every value, in no particular order.
    var values: [Value] { slots.compactMap { $0?.value } }

    /// Every id with its value, in no particular order.
    var entries: [(id: UInt64, value: Value)] { slots.compactMap { $0 } }

    /// The value stored for `id`, if any.
    subscript(id: UInt64) -> Value? {
        guard let index = slot(of: id) else { return nil }
        return slots[index]?.value
    }

    /// Stores `value` for `id`, in place of the value stored for it before.
    mutating func insert(_ value: Value, for id: UInt64) {
        if let index = slot(of: id) {
            slots[index] = (id, value)
            return
        }
        if (count + 1) * 2 > slots.count { grow() }
        var index = home(of: id)
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = (id, value)
        count += 1
    }

    /// Removes the value stored for `id` and returns it (nil if there was none).
    @discardableResult
    mutating func remove(_ id: UInt64) -> Value? {
        guard let found = slot(of: id) else { return nil }
        let removed = slots[found]?.value
        slots[found] = nil
        count -= 1
        // Close the gap: each later entry of the run whose home is not between the gap and its
        // slot (cyclically) would no longer be found past the gap, so it moves into it.
        var gap = found
        var index = (found + 1) & mask
        while let entry = slots[index] {
            let home = home(of: entry.id)
            let reachable = gap <= index ? (gap < home && home <= index) : (gap < home || home <= index)
            if !reachable {
                slots[gap] = entry
                slots[index] = nil
                gap = index
            }
            index = (index + 1) & mask
        }
        return removed
    }

    /// The slot an id is looked for from: Fibonacci hashing (the id times 2^64 divided by the
    /// golden ratio, whose top bits differ for nearby ids). Internal for the tests.
    func home(of id: UInt64) -> Int { Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// The slot holding `id`, if any.
    private func slot(of id: UInt64) -> Int? {
        var index = home(of: id)
        while let entry = slots[index] {
            if entry.id == id { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        mask = slots.count - 1
        shift -= 1
        for case let entry? in old {
            var index = home(of: entry.id)
            while slots[index] != nil { index = (index + 1) & mask }
            slots[index] = entry
        }
    }
}
