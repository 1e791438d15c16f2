import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' way to run programs: how children end, what they write, and what they inherit.
@Suite("Child processes")
struct ChildProcessTests {
    @Test func aRunReportsHowTheChildEndedAndWhatItWroteToEachStream() throws {
        let exited = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(exited.termination == .exit(3))
        #expect(exited.standardOutput == Array("out\n".utf8))
        #expect(exited.standardError == Array("err\n".utf8))
        let killed = try ChildProcess.run("/bin/sh", ["-c", "kill -KILL $$"])
        #expect(killed.termination == .signal(SIGKILL))
        #expect("\(killed.termination)" == "signal 9")
    }

    @Test func aChildWritingMoreThanAPipeHoldsToBothStreamsIsReadToTheEnd() throws {
        // 200 KB to each: read one stream after the other, the child would block on the second.
        let script = "head -c 200000 /dev/zero; head -c 200000 /dev/zero >&2"
        let outcome = try ChildProcess.run("/bin/sh", ["-c", script])
        #expect(outcome.termination == .exit(0))
        #expect(outcome.standardOutput.count == 200_000)
        #expect(outcome.standardError.count == 200_000)
    }

    @Test func aChildInheritsOnlyTheStandardStreams() throws {
        // The test process has sockets and pipes open; `ls` sees its own directory's descriptor only.
        let outcome = try ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        #expect(String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n") == ["0", "1", "2", "3"])
    }

    @Test func aRunningChildCanBeSignalled() throws {
        // It starts with no signal blocked or ignored, whatever the spawning thread blocks.
        let sleeper = try ChildProcess("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.send(SIGTERM)
        #expect(sleeper.wait() == .signal(SIGTERM))
        #expect(!sleeper.isRunning)
    }

    @Test func theEnvironmentIsTheOneGivenAndTheErrorsCanBeCaptured() throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo \"$SLUICE_CHILD\" >&2; exit 7"], environment: ["SLUICE_CHILD": "set"],
            capturingErrors: true)
        #expect(child.wait() == .exit(7))
        #expect(String(decoding: child.capturedErrors(), as: UTF8.self) == "set\n")
    }

    @Test func aMissingExecutableIsASpawnError() {
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess("/nonexistent/sluice-child", []) }
    }
}
