// A process that exits while Sluice's loop thread works: `ExitWhileWorkingTests` runs it as many
// children and checks that none of them dies of a signal.
//
// `SluiceExitChild idle|get <url> <microseconds>`: `idle` makes a client on the shared transport,
// which starts its loop thread, and nothing else (the URL is not used); `get` also starts a GET of
// the URL (an https one is not verified). After `microseconds`, the process calls `exit(0)`,
// wherever the loop thread is: initializing libcurl and OpenSSL, in a TLS handshake, mid-transfer.
import FoundationEssentials
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[2]), let delay = UInt32(arguments[3]) else {
    print("usage: SluiceExitChild idle|get <url> <microseconds>")
    exit(2)
}
do {
    _ = try Client(baseURL: "http://127.0.0.1:1/")
    if arguments[1] == "get" {
        var options = RequestOptions()
        options.tls.insecureSkipsPeerVerification = true
        options.tls.insecureSkipsHostNameVerification = true
        CurlTransport.shared.transfer(try Request(url: url, options: options).prepared()).start()
    }
    usleep(delay)
    exit(0)
} catch {
    print("\(error)")
    exit(3)
}
