/// The waiters' deadlines, earliest first: a binary min-heap. Entries of waiters that have left stay until
/// they reach the top, where the state machine skips them.
struct DeadlineHeap: Sendable {
    struct Entry: Sendable {
        let deadline: Duration
        let waiter: UInt64
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
