import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The table of values by id (the loop's transfers, a client's requests in flight), checked
/// against a `Dictionary` doing the same work.
@Suite("Table by id")
struct IDTableTests {
    private func expectSame(
        _ table: IDTable<String>, _ model: [UInt64: String], probing ids: some Sequence<UInt64>
    ) {
        #expect(table.count == model.count)
        #expect(table.isEmpty == model.isEmpty)
        #expect(table.values.sorted() == model.values.sorted())
        #expect(table.entries.map { "\($0.id)=\($0.value)" }.sorted() == model.map { "\($0.key)=\($0.value)" }.sorted())
        for id in ids { #expect(table[id] == model[id], "id \(id)") }
    }

    @Test func storesFindsReplacesAndRemoves() {
        var table = IDTable<String>(capacity: 4)
        #expect(table.isEmpty)
        #expect(table[1] == nil)
        table.insert("one", for: 1)
        table.insert("two", for: 2)
        table.insert("uno", for: 1)
        #expect(table.count == 2)
        #expect(table[1] == "uno")
        #expect(table.remove(1) == "uno")
        #expect(table.remove(1) == nil)
        #expect(table[1] == nil)
        #expect(table[2] == "two")
        #expect(table.count == 1)
    }

    /// Ids that share their low bits land on the same slot and form runs; removing from the middle
    /// of a run must leave every later entry findable, also when a run wraps past the last slot.
    /// Removal orders of the four ids of `wrappingRun()`, by their place in it.
    @Test(arguments: [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 1, 0], [3, 2, 0, 1]])
    func collidingIdsStayFindableAfterRemovalsInsideTheirRun(removalOrder: [Int]) {
        var table = IDTable<String>(capacity: 4)
        let ids = wrappingRun(in: table)
        var model: [UInt64: String] = [:]
        for id in ids {
            table.insert("\(id)", for: id)
            model[id] = "\(id)"
        }
        #expect(table.mask == 7, "four entries fit in 8 slots without growing")
        expectSame(table, model, probing: ids + [0, 1, 2, 3])
        for place in removalOrder {
            let id = ids[place]
            #expect(table.remove(id) == model.removeValue(forKey: id))
            expectSame(table, model, probing: ids)
        }
    }

    /// Four ids for an empty table of 8 slots: three whose home is the last slot, then one whose
    /// home is the slot before it. Inserted in this order, the first run wraps past the last slot
    /// into slots 0 and 1.
    private func wrappingRun(in table: IDTable<String>) -> [UInt64] {
        let last = (1...UInt64(10_000)).filter { table.home(of: $0) == table.mask }.prefix(3)
        let beforeLast = (1...UInt64(10_000)).first { table.home(of: $0) == table.mask - 1 }!
        return Array(last) + [beforeLast]
    }

    /// Many transfers starting and ending out of order, as the loop sees them, with the table
    /// growing under a burst: every step agrees with a `Dictionary`.
    @Test func agreesWithADictionaryUnderRandomStartsAndEnds() {
        var generator = SplitMix64(state: 42)  // deterministic, so a failure repeats
        var table = IDTable<String>(capacity: 2)
        var model: [UInt64: String] = [:]
        var nextID: UInt64 = 1
        for step in 0..<20_000 {
            // Bursts of starts (up to a few thousand in flight), then drains.
            let starting = (step / 2_500) % 2 == 0 ? 3 : 1
            if model.isEmpty || Int.random(in: 0..<4, using: &generator) < starting {
                // Sometimes an id far from the others, as after many finished transfers.
                let id = Int.random(in: 0..<50, using: &generator) == 0 ? nextID &+ 1 << 40 : nextID
                nextID += 1
                table.insert("v\(id)", for: id)
                model[id] = "v\(id)"
            } else {
                let id = model.keys.randomElement(using: &generator)!
                #expect(table.remove(id) == model.removeValue(forKey: id))
            }
            if step % 997 == 0 { expectSame(table, model, probing: model.keys) }
        }
        expectSame(table, model, probing: Array(model.keys) + [0, nextID, nextID + 1])
        for id in Array(model.keys) { #expect(table.remove(id) == model.removeValue(forKey: id)) }
        #expect(table.isEmpty)
        #expect(table.values.isEmpty)
    }
}
