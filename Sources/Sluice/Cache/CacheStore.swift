/// Where a cache keeps its entries: by primary key (method and URL), then by variant (the request
/// fields `Vary` names), bounded in bytes, least recently used first out.
protocol CacheStore: Sendable {
    /// Every stored variant for `primaryKey`; each counts as used.
    func entries(for primaryKey: String) -> [CacheEntry]
    /// Stores `entry`, replacing the one with the same keys, and evicts the least recently used
    /// entries while the store holds more than its capacity. An entry larger than the whole
    /// capacity is not stored.
    func store(_ entry: CacheEntry)
    /// Removes every variant stored for `primaryKey`.
    func remove(_ primaryKey: String)
    /// Removes everything.
    func removeAll()
    /// The bytes the entries take, as `CacheEntry.cost` counts them.
    var byteCount: Int { get }
    /// The most bytes the entries may take; a larger entry is not stored.
    var capacity: Int { get }
    /// Returns once every write started before it is done.
    func flush()
}

/// The least recently used bookkeeping both stores share: a use counter per entry, and the victims
/// to evict when the bytes exceed a capacity.
struct LRUBook<Key: Hashable> {
    private(set) var records: [Key: (cost: Int, lastUse: UInt64)] = [:]
    private(set) var bytes = 0
    private var tick: UInt64 = 0

    /// Records `key` as just used, with `cost` bytes (replacing its earlier cost).
    mutating func touch(_ key: Key, cost: Int? = nil) {
        tick += 1
        let old = records[key]
        let cost = cost ?? old?.cost ?? 0
        bytes += cost - (old?.cost ?? 0)
        records[key] = (cost, tick)
    }

    /// Records `key` with `cost`, ordered by `age` among the others (rebuilding from a directory).
    mutating func insert(_ key: Key, cost: Int, lastUse: UInt64) {
        bytes += cost - (records[key]?.cost ?? 0)
        records[key] = (cost, lastUse)
        tick = max(tick, lastUse)
    }

    mutating func remove(_ key: Key) {
        guard let old = records.removeValue(forKey: key) else { return }
        bytes -= old.cost
    }

    /// Removes and returns the least recently used keys until the bytes fit in `capacity`. Sorting
    /// every key costs O(n log n), but only when the capacity is exceeded, and a whole batch of
    /// victims is found at once.
    mutating func evict(toFit capacity: Int) -> [Key] {
        guard bytes > capacity else { return [] }
        var victims: [Key] = []
        for (key, record) in records.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard bytes > capacity else { break }
            victims.append(key)
            bytes -= record.cost
            records[key] = nil
        }
        return victims
    }
}
