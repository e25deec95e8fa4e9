import CMicroHTTPD

/// Large blocks (request bodies, sheets) are mapped on their own and unmapped when freed, so that memory comes
/// back to the system after a burst of uploads. glibc otherwise raises its mapping threshold each time such a
/// block is freed (up to 32 MiB), after which the next ones come from its heaps, which it keeps.
public enum LargeAllocations {
    /// Blocks of at least this many bytes are mapped on their own.
    public static let mappedFrom = 256 * 1024

    /// Fixes the threshold (which also stops glibc moving it); process-wide, for a server's start.
    public static func returnToTheSystem() {
        _ = kuroneko_map_blocks_from(Int32(mappedFrom))
    }
}
