import ApptCore
import Dispatch
import Foundation

/// The reading half of an import, on a thread of its own: while the store writes one batch
/// on the `DatabaseActor`, the reader parses the next. Parsing was a third of an import
/// (100k events: about 0.9 s of 2.7 s), done on the same core before each batch was stored.
///
/// A hand-over, not a queue: the reader waits with a parsed batch until the store takes it,
/// so at most two batches are held (the one being stored, the one being read), as before
/// one batch and the next one's text. The reader keeps its own keys (`ImportKeys`, on a
/// private SQLite database), so nothing of the import's connection leaves its actor.
///
/// A thread, not a task: the reader waits for the store, and a task waiting that way would
/// hold one of the cooperative pool's threads (two on this machine) for the whole import.
final class ImportReader: Sendable {
  /// What the store gets from the reader, in order: batches, then the end.
  enum Message: Sendable {
    case batch([ICalendar.ImportItem])
    case end(ReadStep)
  }

  /// What reading came to: the reader's outcome, or a failure to read.
  enum ReadStep: Sendable {
    case read(ICalendar.StreamedRead)
    case failed(StoreError)
  }

  /// How the reader reads: keeping keys in `kept`, handing each batch to the sink (false:
  /// stop reading).
  typealias Read =
    @Sendable (_ kept: any ICalendar.KeptEvents, _ sink: @escaping ([ICalendar.ImportItem]) -> Bool) ->
    ReadStep

  private let waiting = Locked<[Message]>([])
  private let available = DispatchSemaphore(value: 0)
  private let taken = DispatchSemaphore(value: 0)
  /// The store stopped taking batches (it failed): the reader stops at its next batch.
  private let stopped = Locked(false)
  /// The store has had the end: the thread is done.
  private let ended = Locked(false)

  /// Starts reading on a new thread with `read`. `keysFile`: where the keys' database is
  /// ("", SQLite's private temporary one, but in tests).
  init(keysFile: String = "", _ read: @escaping Read) {
    let thread = Thread { [self] in
      let keys = ImportKeys(filename: keysFile)
      let step = read(keys) { items in
        // The batch's keys were kept before the sink is called: a failure to keep them stops
        // the import rather than miss a later copy.
        keys.failure == nil && self.handOn(items)
      }
      self.put(.end(keys.failure.map { .failed($0) } ?? step))
    }
    // The parser recurses into nested components: the main thread's stack, not Foundation's
    // smaller default for other threads.
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// The store's side: hands each batch to `take` as it comes, and returns how reading ended.
  /// When `take` throws, the reader is left to `finish`.
  func drain(into take: ([ICalendar.ImportItem]) throws(StoreError) -> Void) throws(StoreError) -> ReadStep {
    while true {
      switch next() {
      case .batch(let items): try take(items)
      case .end(let step): return step
      }
    }
  }

  /// The store's side: the next batch or the end, waiting for it.
  func next() -> Message {
    available.wait()
    let message = waiting.withLock { $0.removeFirst() }
    switch message {
    case .batch: taken.signal()
    case .end: ended.withLock { $0 = true }
    }
    return message
  }

  /// The store's side, on its way out whatever happened: stops the reader if it is still
  /// reading and waits for its end, so no thread outlives the import (nor its file).
  func finish() {
    guard !ended.withLock({ $0 }) else { return }
    stopped.withLock { $0 = true }
    while case .batch = next() {}
  }

  /// The reader's side: hands `items` on and waits until the store took them; false when
  /// the store stopped.
  private func handOn(_ items: [ICalendar.ImportItem]) -> Bool {
    guard !stopped.withLock({ $0 }) else { return false }
    put(.batch(items))
    taken.wait()
    return !stopped.withLock { $0 }
  }

  private func put(_ message: Message) {
    waiting.withLock { $0.append(message) }
    available.signal()
  }
}
