/// Facts about this package. (Not named `Kuroneko`: a type named like the module would shadow it, and
/// `Kuroneko.Shipment` would then not compile in a program with a `Shipment` of its own.)
public enum KuronekoVersion {
    /// The package version, reported by `kuroneko --version` and in the User-Agent.
    public static let version = "0.1.0"
    /// Where the project lives; named in the User-Agent so Yamato can see who is asking.
    public static let homePage = "https://github.com/kuroneko-tracking/kuroneko"
}
