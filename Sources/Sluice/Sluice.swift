internal import CCurl
@_exported import SluiceSignals

/// Facts about this build of Sluice. (Not named `Sluice`: an enum with the module's name would
/// stop users from writing `Sluice.Response` to tell Sluice's types from their own.)
public enum SluiceInfo {
    /// The version of the Sluice library.
    public static let version = "0.1.0"

    /// The version of the libcurl that Sluice is linked against, e.g. `"7.88.1"`.
    public static var libcurlVersion: String {
        guard let info = sluice_version_info(), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }
}
