@_exported import SluiceSignals

// `TestScheduler` lives in SluiceSignals (so operators can be tested in virtual time without
// this module) and is re-exported here, where the rest of Sluice's test support will grow.
