import BenchChild

// `sluice-bench-sluice`: Sluice's child. It links the harness and Sluice, and its own code uses
// FoundationEssentials, not Foundation: whatever else is resident is what Sluice itself brings.
ChildProgram.main(
    client: .sluice, contender: { try SluiceContender(context: $0) }, download: SluiceDownload.run)
