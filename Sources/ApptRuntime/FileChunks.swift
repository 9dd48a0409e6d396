import ApptCore
import ApptStore
import Glibc

/// A regular file read a piece at a time, so an import holds one piece of its text rather
/// than all of it, whatever its size (`CommandExecutor.readFile` reads a pipe or a FIFO
/// whole, up to the import limit). `Sendable`: the import's reader thread reads it, one
/// piece after another.
final class FileChunks: Sendable {
  /// Bytes per piece: big enough that the reads cost nothing, small beside the page cache.
  static let pieceSize = 1 << 20

  private let fd: Int32
  private let failure: @Sendable (String) -> StoreError

  /// What `open` found at a path.
  enum Opened {
    /// A regular file, to read a piece at a time.
    case pieces(FileChunks)
    /// Anything else (a pipe, a FIFO, `/dev/stdin`), read whole from the one descriptor:
    /// opened a second time, a FIFO whose writer has finished would wait for another.
    case whole([UInt8])
  }

  /// Opens `path` once. `errors` are `readFile`'s: a failure with its reason, and the refusal
  /// of a pipe's text over `limit`.
  static func open(
    path: String,
    limit: Int,
    errors: (failure: @Sendable (String) -> StoreError, tooLarge: StoreError)
  ) throws(StoreError) -> Opened {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw errors.failure(String(cString: strerror(errno))) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      defer { Glibc.close(fd) }
      return .whole(try CommandExecutor.readAll(fd, isRegular: false, size: 0, limit: limit, errors: errors))
    }
    return .pieces(FileChunks(fd: fd, failure: errors.failure))
  }

  private init(fd: Int32, failure: @escaping @Sendable (String) -> StoreError) {
    self.fd = fd
    self.failure = failure
  }

  deinit { Glibc.close(fd) }

  /// The file's first `count` bytes (fewer when it is shorter), read without moving on:
  /// `next()` still starts at the beginning.
  func head(_ count: Int) throws(StoreError) -> [UInt8] {
    var error: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
      filled = 0
      guard let base = buffer.baseAddress else { return }
      while filled < count {
        let got = Glibc.pread(fd, base + filled, count - filled, off_t(filled))
        if got < 0, errno == EINTR { continue }
        if got < 0 { error = errno }
        if got <= 0 { return }
        filled += got
      }
    }
    guard error == 0 else { throw failure(String(cString: strerror(error))) }
    return bytes
  }

  /// The next piece of the file, nil at its end.
  func next() throws(StoreError) -> [UInt8]? {
    var error: Int32 = 0
    let piece = [UInt8](unsafeUninitializedCapacity: Self.pieceSize) { buffer, count in
      count = 0
      while true {
        let got = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if got < 0, errno == EINTR { continue }
        if got < 0 { error = errno } else { count = got }
        return
      }
    }
    guard error == 0 else { throw failure(String(cString: strerror(error))) }
    return piece.isEmpty ? nil : piece
  }
}
