import Sluice

// The guided tour of Sluice. Each step is a small file in this folder that reads like
// documentation; `make demo` runs them in order.

print("Sluice \(Sluice.version) on libcurl \(Sluice.libcurlVersion)\n")

await ReactiveBasics.run()
