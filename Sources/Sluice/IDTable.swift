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
/// stops at the first empty slot. The table doubles when half full and never shrinks. Ids and
/// values are kept apart: probing reads plain integers, and values are moved, never copied (a copy
/// of a value that holds references retains each of them).
struct IDTable<Value> {
    /// The id in each slot, or `vacant`.
    private var ids: [UInt64]
    /// The value in each slot (nil where the id is `vacant`).
    private var slots: [Value?]
    /// The slot count minus one (the count is a power of two).
    private(set) var mask: Int
    /// 64 minus the number of bits of a slot index: the hash's top bits pick the slot.
    private var shift: UInt64
    /// How many entries the table holds.
    private(set) var count = 0

    /// Marks an empty slot; never an id (counters would take centuries to reach it).
    private static var vacant: UInt64 { .max }

    /// An empty table with room for `capacity` entries before it grows.
    init(capacity: Int = 64) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        ids = Array(repeating: Self.vacant, count: size)
        slots = Array(repeating: nil, count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    var isEmpty: Bool { count == 0 }

    /// Every value, in no particular order.
    var values: [Value] { slots.compactMap { $0 } }

    /// Every id with its value, in no particular order.
    var entries: [(id: UInt64, value: Value)] {
        zip(ids, slots).compactMap { id, value in value.map { (id, $0) } }
    }

    /// The value stored for `id`, if any.
    subscript(id: UInt64) -> Value? {
        guard let index = slot(of: id) else { return nil }
        return slots[index]
    }

    /// Stores `value` for `id`, in place of the value stored for it before.
    mutating func insert(_ value: consuming Value, for id: UInt64) {
        precondition(id != Self.vacant, "IDTable: the id \(id) marks empty slots")
        if let index = slot(of: id) {
            slots[index] = value
            return
        }
        if (count + 1) * 2 > ids.count { grow() }
        var index = home(of: id)
        while ids[index] != Self.vacant { index = (index + 1) & mask }
        ids[index] = id
        slots[index] = value
        count += 1
    }

    /// Removes the value stored for `id` and returns it (nil if there was none).
    @discardableResult
    mutating func remove(_ id: UInt64) -> Value? {
        guard let found = slot(of: id) else { return nil }
        let removed = slots[found].take()
        ids[found] = Self.vacant
        count -= 1
        // Close the gap: each later entry of the run whose home is not between the gap and its
        // slot (cyclically) would no longer be found past the gap, so it moves into it.
        var gap = found
        var index = (found + 1) & mask
        while ids[index] != Self.vacant {
            let home = home(of: ids[index])
            let reachable = gap <= index ? (gap < home && home <= index) : (gap < home || home <= index)
            if !reachable {
                ids[gap] = ids[index]
                slots[gap] = slots[index].take()
                ids[index] = Self.vacant
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
        while ids[index] != Self.vacant {
            if ids[index] == id { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private mutating func grow() {
        let oldIDs = ids
        var oldSlots = slots
        ids = Array(repeating: Self.vacant, count: oldIDs.count * 2)
        slots = Array(repeating: nil, count: oldIDs.count * 2)
        mask = ids.count - 1
        shift -= 1
        for old in oldIDs.indices where oldIDs[old] != Self.vacant {
            var index = home(of: oldIDs[old])
            while ids[index] != Self.vacant { index = (index + 1) & mask }
            ids[index] = oldIDs[old]
            slots[index] = oldSlots[old].take()
        }
    }
}
