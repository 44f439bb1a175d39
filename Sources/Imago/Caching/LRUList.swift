/// Intrusive doubly linked lists over one pool of index-addressed nodes.
///
/// Nodes live in a single array and link to each other by index, with a free list of
/// recycled slots. Moving an entry to the front on every cache hit then touches two or three
/// array elements and allocates nothing: no per-node class instances, so no retain/release
/// traffic on the hot path and no allocation per insert once the pool has grown.
///
/// Several lists (segments) can share the pool; each node remembers which one it is on.
/// Not thread-safe: the owning cache serialises access.
struct LRUNodePool<Key: Hashable, Value> {
    /// Index meaning "no node".
    static var none: Int32 { -1 }

    struct Node {
        var key: Key?
        var value: Value?
        var cost: Int
        var prev: Int32
        var next: Int32
        /// Which `LRUList` the node is on; meaningless while the slot is free.
        var segment: UInt8
    }

    private(set) var nodes: [Node] = []
    /// Head of the chain of free slots, linked through `next`.
    private var freeHead: Int32 = -1

    /// Takes a free slot (or grows the pool) and fills it. The node is not on any list yet.
    mutating func allocate(key: Key, value: Value, cost: Int) -> Int32 {
        if freeHead != Self.none {
            let index = freeHead
            freeHead = nodes[Int(index)].next
            nodes[Int(index)] = Node(key: key, value: value, cost: cost, prev: Self.none, next: Self.none, segment: 0)
            return index
        }
        nodes.append(Node(key: key, value: value, cost: cost, prev: Self.none, next: Self.none, segment: 0))
        return Int32(nodes.count - 1)
    }

    /// Returns an unlinked slot to the free list and hands back its value, so the caller can
    /// release it outside its lock.
    mutating func free(_ index: Int32) -> Value? {
        let value = nodes[Int(index)].value
        nodes[Int(index)].key = nil
        nodes[Int(index)].value = nil
        nodes[Int(index)].next = freeHead
        freeHead = index
        return value
    }

    /// Drops every node and the pool's storage.
    mutating func removeAll() {
        nodes.removeAll()
        freeHead = Self.none
    }

    subscript(index: Int32) -> Node {
        get { nodes[Int(index)] }
        _modify { yield &nodes[Int(index)] }
    }
}

/// One recency-ordered list (front = most recently used) threaded through an `LRUNodePool`,
/// with the running count and cost of its members.
struct LRUList {
    let segment: UInt8
    private(set) var head: Int32 = -1
    private(set) var tail: Int32 = -1
    private(set) var count = 0
    private(set) var totalCost = 0

    init(segment: UInt8) { self.segment = segment }

    /// The least recently used member, or nil when empty.
    var leastRecent: Int32? { tail == -1 ? nil : tail }

    mutating func pushFront<K, V>(_ index: Int32, in pool: inout LRUNodePool<K, V>) {
        pool[index].segment = segment
        pool[index].prev = -1
        pool[index].next = head
        if head != -1 { pool[head].prev = index }
        head = index
        if tail == -1 { tail = index }
        count += 1
        totalCost += pool[index].cost
    }

    mutating func unlink<K, V>(_ index: Int32, in pool: inout LRUNodePool<K, V>) {
        let node = pool[index]
        precondition(node.segment == segment, "node is on another list")
        if node.prev != -1 { pool[node.prev].next = node.next } else { head = node.next }
        if node.next != -1 { pool[node.next].prev = node.prev } else { tail = node.prev }
        pool[index].prev = -1
        pool[index].next = -1
        count -= 1
        totalCost -= node.cost
    }

    /// Makes `index` (already on this list) the most recently used.
    mutating func moveToFront<K, V>(_ index: Int32, in pool: inout LRUNodePool<K, V>) {
        guard head != index else { return }
        unlink(index, in: &pool)
        pushFront(index, in: &pool)
    }

    /// Forgets every member without touching the pool (the pool is cleared alongside).
    mutating func reset() {
        head = -1
        tail = -1
        count = 0
        totalCost = 0
    }
}
