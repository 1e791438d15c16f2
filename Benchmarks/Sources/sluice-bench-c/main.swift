import BenchChild

// `sluice-bench-c`: the C client's child. It links the harness, CRawCurl and libcurl, and neither
// Sluice nor Foundation: its peak RSS is that of a program on libcurl alone, the reference of every
// ratio.
ChildProgram.main(
    client: .c, contender: { try RawCurlContender(context: $0) }, download: RawCurlDownload.run)
