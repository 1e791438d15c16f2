import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Entries in a directory, one file per entry, bounded in bytes, least recently used first out.
///
/// A file is named by the hashes of its keys (`<primary>-<variant>.entry`) and written whole to a
/// temporary file that is then renamed over the name, so a reader, in this process or another,
/// sees the old file or the new one, never half of one. A file that does not read as one intact
/// entry (`CacheEntry(decoding:)`) is a miss, and is removed.
///
/// Stores opened on the same directory in one process share one index and one writer (see
/// `DiskCacheIndex`), so two clients keep one budget; another process keeps its own index and
/// sees the other's files only when it next starts.
final class DiskCacheStore: CacheStore {
    private let index: DiskCacheIndex

    /// Opens the store in `directory`, made if missing; its index is rebuilt from the files there.
    init(directory: URL, capacity: Int) throws(SluiceError) {
        index = try DiskCacheIndex.shared(for: directory, capacity: capacity)
    }

    func entries(for primaryKey: String) -> [CacheEntry] { index.entries(for: primaryKey) }
    func store(_ entry: CacheEntry) { index.store(entry) }
    func remove(_ primaryKey: String) { index.remove(primaryKey) }
    func removeAll() { index.removeAll() }
    var byteCount: Int { index.byteCount }

    var capacity: Int { index.capacity }
    func flush() { index.flush() }
}

/// The in-memory index of one cache directory: each file's size and last use, the files of each
/// primary key, and the writes not yet on disk.
///
/// Reads happen on the caller's thread; writes and deletions happen in order on one serial queue,
/// so a response arriving on the transport's thread never waits for the disk. Until its file is
/// renamed into place, an entry being written is served from `pending`.
final class DiskCacheIndex: Sendable {
    private struct State {
        var book = LRUBook<String>()
        /// The file names stored under each primary key's hash.
        var files: [String: Set<String>] = [:]
        /// Entries whose file is being written, by file name, with the write's number.
        var pending: [String: (write: UInt64, data: Data)] = [:]
        var writes: UInt64 = 0
    }

    private static let registry = Lock<[String: WeakIndex]>([:])

    private struct WeakIndex {
        weak var index: DiskCacheIndex?
    }

    let directory: String
    let capacity: Int
    private let state = Lock(State())
    private let queue: DispatchQueue

    /// The index of `directory`: the one already open in this process, or a new one.
    static func shared(for directory: URL, capacity: Int) throws(SluiceError) -> DiskCacheIndex {
        let path = directory.standardizedFileURL.path
        // `Lock`, not `Mutex` (here and in `state`): clients on many threads contend for them, and a
        // contended `Mutex` hands over in the kernel, where the thread sanitizer cannot see it.
        return try registry.withLock { registry -> Result<DiskCacheIndex, SluiceError> in
            if let open = registry[path]?.index { return .success(open) }
            do throws(SluiceError) {
                let index = try DiskCacheIndex(directory: path, capacity: capacity)
                registry[path] = WeakIndex(index: index)
                return .success(index)
            } catch {
                return .failure(error)
            }
        }.get()
    }

    private init(directory: String, capacity: Int) throws(SluiceError) {
        self.directory = directory
        self.capacity = capacity
        queue = DispatchQueue(label: "sluice.cache.disk")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SluiceError(
                .invalidOption, "The cache directory \(directory) cannot be made: \(error).", underlyingError: error)
        }
        rebuild()
    }

    /// Lists the directory's entries, oldest modification first as least recently used, and
    /// removes leftovers of writes that never finished.
    private func rebuild() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [(name: String, size: Int, modified: Double)] = []
        for name in names {
            var info = stat()
            guard stat(path(name), &info) == 0 else { continue }
            if name.hasSuffix(".tmp") {
                // Another process may be writing it right now: only an hour-old one is abandoned.
                if Double(info.st_mtim.tv_sec) < Date().timeIntervalSince1970 - 3600 { unlink(path(name)) }
                continue
            }
            guard Self.primaryHash(ofFile: name) != nil else { continue }
            found.append((name, Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
        }
        state.withLock { state in
            for (order, file) in found.sorted(by: { $0.modified < $1.modified }).enumerated() {
                state.book.insert(file.name, cost: file.size, lastUse: UInt64(order + 1))
                state.files[Self.primaryHash(ofFile: file.name)!, default: []].insert(file.name)
            }
        }
        let victims = state.withLock { $0.book.evict(toFit: capacity) }
        for victim in victims { unlink(path(victim)) }
    }

    func entries(for primaryKey: String) -> [CacheEntry] {
        let primary = FNV1a.hex(FNV1a.hash(primaryKey))
        let candidates = state.withLock { state -> [(name: String, pending: Data?)] in
            (state.files[primary] ?? []).map { name in
                state.book.touch(name)
                return (name, state.pending[name]?.data)
            }
        }
        var entries: [CacheEntry] = []
        for candidate in candidates {
            let data = candidate.pending ?? (try? Data(contentsOf: URL(fileURLWithPath: path(candidate.name))))
            guard let data else {
                forget(candidate.name)
                continue
            }
            let entry = data.withUnsafeBytes { CacheEntry(decoding: $0) }
            // A file of another key with the same hash is left alone; a damaged one is removed.
            guard let entry else {
                discard(candidate.name)
                continue
            }
            if entry.primaryKey == primaryKey { entries.append(entry) }
        }
        return entries
    }

    func store(_ entry: CacheEntry) {
        let data = entry.encoded()
        guard data.count <= capacity else { return }
        let name = Self.fileName(primary: entry.primaryKey, variant: entry.variantKey)
        // The file work is queued while the lock is held, so the queue runs it in the order the
        // index changed: a write queued after the deletion of the same file by an eviction
        // elsewhere would otherwise leave a file the index does not count.
        state.withLock { state in
            state.writes += 1
            let write = state.writes
            state.pending[name] = (write, data)
            state.book.touch(name, cost: data.count)
            state.files[Self.primaryHash(ofFile: name)!, default: []].insert(name)
            let victims = state.book.evict(toFit: capacity)
            for victim in victims {
                state.pending[victim] = nil
                state.files[Self.primaryHash(ofFile: victim)!]?.remove(victim)
            }
            queue.async { [self] in
                writeFile(name, data)
                self.state.withLock { state in
                    if state.pending[name]?.write == write { state.pending[name] = nil }
                }
                for victim in victims { unlink(path(victim)) }
            }
        }
    }

    func remove(_ primaryKey: String) {
        let primary = FNV1a.hex(FNV1a.hash(primaryKey))
        state.withLock { state in
            let names = state.files.removeValue(forKey: primary) ?? []
            guard !names.isEmpty else { return }
            for name in names {
                state.book.remove(name)
                state.pending[name] = nil
            }
            queue.async { [self] in for name in names { unlink(path(name)) } }
        }
    }

    func removeAll() {
        state.withLock { state in
            let names = Array(state.book.records.keys)
            state = State()
            queue.async { [self] in for name in names { unlink(path(name)) } }
        }
    }

    var byteCount: Int { state.withLock { $0.book.bytes } }

    func flush() { queue.sync {} }

    /// Writes `data` to a temporary file beside `name`, then renames it over `name`: readers see
    /// the whole old file or the whole new one.
    private func writeFile(_ name: String, _ data: Data) {
        let temporary = path("\(name).\(UInt64.random(in: 0...UInt64.max)).tmp")
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, path(name)) != 0 { unlink(temporary) }
        } catch {
            // A full or read-only disk: the entry is simply not kept.
            unlink(temporary)
            forget(name)
        }
    }

    /// Takes a file that has gone (removed by another store or process) out of the index.
    private func forget(_ name: String) {
        state.withLock { state in
            state.book.remove(name)
            state.files[Self.primaryHash(ofFile: name)!]?.remove(name)
        }
    }

    /// Removes a damaged file and its record.
    private func discard(_ name: String) {
        forget(name)
        unlink(path(name))
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    static func fileName(primary: String, variant: String) -> String {
        "\(FNV1a.hex(FNV1a.hash(primary)))-\(FNV1a.hex(FNV1a.hash(variant))).entry"
    }

    /// The primary key's hash a file name starts with, or nil for a name of another shape.
    static func primaryHash(ofFile name: String) -> String? {
        let parts = name.dropLast(".entry".count).split(separator: "-")
        guard name.hasSuffix(".entry"), parts.count == 2, parts.allSatisfy({ $0.count == 16 }) else { return nil }
        return String(parts[0])
    }
}
