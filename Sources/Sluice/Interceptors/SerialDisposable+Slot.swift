import FoundationEssentials

extension SerialDisposable {
    /// Installs a new, empty slot as `inner` (disposing what was there) and returns it, or nil when
    /// this disposable has been disposed: the caller left, so nothing should start.
    ///
    /// Start the next attempt into the slot, not into `self`: an attempt that ends while `start` is
    /// still running may already install its successor in `self`, which a late assignment of the
    /// attempt's own disposable would then overwrite.
    func freshSlot() -> SerialDisposable? {
        let slot = SerialDisposable()
        inner = slot
        return slot.isDisposed ? nil : slot
    }
}
