import Foundation

/// The fuzz target chosen by `SLUICE_FUZZ_TARGET`, read once.
enum Selected {
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["SLUICE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("SLUICE_FUZZ_TARGET must be one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()
}

/// libFuzzer's entry point: one input through the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Selected.target.run(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size))
    return 0
}

#if SLUICE_FUZZING
    // Built with `-sanitize=fuzzer`: libFuzzer's driver runs the inputs. SwiftPM names an
    // executable's entry point `<module>_main`, which libFuzzer's own `main` cannot replace.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    @_cdecl("SluiceFuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        _ = Selected.target
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
    }
#else
    /// Built without the fuzzer: runs the files named as arguments (inputs of a corpus, crash
    /// reproducers) through the selected target, and the files of the directories named.
    @main
    enum Replay {
        static func main() throws {
            _ = Selected.target
            var count = 0
            for argument in CommandLine.arguments.dropFirst() {
                for path in files(at: argument) {
                    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                    bytes.withUnsafeBufferPointer { Selected.target.run($0) }
                    count += 1
                }
            }
            print("\(Selected.target.rawValue): \(count) inputs ran")
        }

        static func files(at path: String) -> [String] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                return [path]
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }
        }
    }
#endif
