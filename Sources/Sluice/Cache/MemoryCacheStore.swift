import Synchronization

/// Entries in memory, bounded in bytes, least recently used first out.
final class MemoryCacheStore: CacheStore {
    private struct Key: Hashable {
        var primary: String
        var variant: String
    }

    private struct State {
        var entries: [String: [String: CacheEntry]] = [:]
        var book = LRUBook<Key>()
    }

    let capacity: Int
    private let state = Lock(State())

    init(capacity: Int) { self.capacity = capacity }

    func entries(for primaryKey: String) -> [CacheEntry] {
        state.withLock { state in
            guard let variants = state.entries[primaryKey] else { return [] }
            for variant in variants.keys { state.book.touch(Key(primary: primaryKey, variant: variant)) }
            return Array(variants.values)
        }
    }

    func store(_ entry: CacheEntry) {
        let cost = entry.cost
        guard cost <= capacity else { return }
        state.withLock { state in
            let variant = entry.variantKey
            state.entries[entry.primaryKey, default: [:]][variant] = entry
            state.book.touch(Key(primary: entry.primaryKey, variant: variant), cost: cost)
            for victim in state.book.evict(toFit: capacity) {
                state.entries[victim.primary]?[victim.variant] = nil
                if state.entries[victim.primary]?.isEmpty == true { state.entries[victim.primary] = nil }
            }
        }
    }

    func remove(_ primaryKey: String) {
        state.withLock { state in
            for variant in state.entries.removeValue(forKey: primaryKey)?.keys ?? [:].keys {
                state.book.remove(Key(primary: primaryKey, variant: variant))
            }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    var byteCount: Int { state.withLock { $0.book.bytes } }

    func flush() {}
}
