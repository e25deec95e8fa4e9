/// Facts about this package.
public enum Kuroneko {
    /// The package version, reported by `kuroneko --version` and in the User-Agent.
    public static let version = "0.1.0"
    /// Where the project lives; named in the User-Agent so Yamato can see who is asking.
    public static let homePage = "https://github.com/kuroneko-tracking/kuroneko"
}
