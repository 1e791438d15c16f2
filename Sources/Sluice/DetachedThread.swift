internal import CNetlink

#if canImport(Glibc)
    import Glibc
#endif

/// A plain POSIX thread that runs one closure and ends; nobody joins it.
///
/// Not Foundation's `Thread`: Sluice does not link Foundation (only FoundationEssentials), and
/// `Thread` would bring in code and metadata the threads never use (an `NSObject` subclass, its
/// thread dictionary, `Thread.current` bookkeeping), resident for the life of the process.
package enum DetachedThread {
    /// Starts a thread named `name` (Linux keeps at most 15 bytes of it, shown by debuggers and
    /// `top -H`) that runs `body` once.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        // The thread owns this reference and releases it when it starts running.
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            _ = sluice_name_current_thread(body.name)
            body.run()
            return nil
        }
        let result = pthread_create(&thread, &attributes, entry, context)
        precondition(result == 0, "Cannot start the thread \(name): \(String(cString: strerror(result)))")
    }

    /// What the thread runs, handed to it through `pthread_create`'s argument.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void

        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
