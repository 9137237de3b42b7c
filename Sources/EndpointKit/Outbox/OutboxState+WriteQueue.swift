extension OutboxState {
    /// A group's writes, oldest first: appended at the end and taken from the front, each in constant time (an
    /// array's `removeFirst` moves every write behind it, and a group may hold 10,000).
    package struct WriteQueue: Sendable, Sequence {
        private var elements: [Write] = []
        /// Where the first write still queued sits in `elements`.
        private var start = 0

        package var isEmpty: Bool { start == elements.count }
        package var count: Int { elements.count - start }

        /// The oldest write, and its state, changed in place.
        package var first: Write? {
            get { isEmpty ? nil : elements[start] }
            set {
                guard !isEmpty, let newValue else { return }
                elements[start] = newValue
            }
        }

        package mutating func append(_ write: Write) { elements.append(write) }

        /// Takes the oldest write off; the space it leaves is given back once it is half of what is kept.
        package mutating func removeFirst() {
            guard !isEmpty else { return }
            start += 1
            if start == elements.count {
                elements.removeAll(keepingCapacity: true)
                start = 0
            } else if start >= 32, start * 2 >= elements.count {
                elements.removeFirst(start)
                start = 0
            }
        }

        package func makeIterator() -> ArraySlice<Write>.Iterator { elements[start...].makeIterator() }
    }
}
