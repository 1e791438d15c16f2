import Sluice

print("Sluice \(Sluice.version) on libcurl \(Sluice.libcurlVersion)")
