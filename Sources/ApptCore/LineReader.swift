import Foundation

/// Splits a stream of bytes into lines, in linear time and bounded memory, without decoding
/// them: invalid UTF-8 is reported by the caller instead of being replaced with U+FFFD behind
/// the user's back (which `readLine` does).
///
/// The bytes come from `source` (stdin in script mode, anything in tests), which fills the
/// buffer it is given and returns how many bytes it wrote: 0 at the end of input, less than 0
/// on an error (treated as the end). Each byte is looked at once: the search for a newline
/// resumes where the last read ended, never at the line's start.
///
/// A line longer than `limit` bytes (not counting its newline) is not kept: the reader skips
/// to its end, holding at most `limit` bytes plus one read, and reports `.tooLong`. A UTF-8
/// byte order mark at the very start of the input is skipped (an editor's BOM is not part
/// of the first command); anywhere else it is data.
public struct LineReader {
  /// The longest line a script may have: 1 MiB. The longest valid command is far shorter
  /// (a 10,000-character note is at most 40,000 bytes, 80,000 with every character escaped,
  /// plus a title and the options); a longer line is a mistake, such as a file piped in.
  public static let maximumLineLength = 1 << 20

  public enum Line: Equatable, Sendable {
    /// A line's bytes, without its newline.
    case text([UInt8])
    /// A line of `byteCount` bytes (more than the limit), skipped.
    case tooLong(byteCount: Int)
  }

  public typealias Source = (UnsafeMutableRawBufferPointer) -> Int

  public let limit: Int
  private let source: Source
  private var chunk: [UInt8]
  private var position = 0
  private var filled = 0
  private var atEnd = false
  private var isFirstLine = true

  public init(limit: Int = LineReader.maximumLineLength, chunkSize: Int = 65_536, source: @escaping Source) {
    self.limit = limit
    self.source = source
    self.chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
  }

  /// A reader over an in-memory byte string (for tests), delivered `chunkSize` bytes a read.
  public init(bytes: [UInt8], limit: Int = LineReader.maximumLineLength, chunkSize: Int = 65_536) {
    var offset = 0
    self.init(limit: limit, chunkSize: chunkSize) { buffer in
      let count = min(buffer.count, bytes.count - offset)
      guard count > 0 else { return 0 }
      bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
      offset += count
      return count
    }
  }

  /// The next line, or nil at the end of input.
  public mutating func next() -> Line? {
    var line: [UInt8] = []
    var length = 0
    var sawAnything = false
    while true {
      if position == filled {
        if !atEnd { refill() }
        if position == filled {
          // The end of input: a last line without a newline is still a line.
          guard sawAnything else { return nil }
          return finish(line, length: length)
        }
      }
      sawAnything = true
      let newline = findNewline()
      let end = newline ?? filled
      let count = end - position
      if length + count <= limit {
        line.append(contentsOf: chunk[position..<end])
      } else if !line.isEmpty {
        line = []  // too long: stop keeping it, and give its memory back
      }
      length += count
      position = end
      if newline != nil {
        position += 1
        return finish(line, length: length)
      }
    }
  }

  private mutating func finish(_ line: [UInt8], length: Int) -> Line {
    defer { isFirstLine = false }
    guard length <= limit else { return .tooLong(byteCount: length) }
    if isFirstLine, line.starts(with: [0xEF, 0xBB, 0xBF]) { return .text(Array(line.dropFirst(3))) }
    return .text(line)
  }

  /// The index of the next newline in the unread part of the chunk.
  private func findNewline() -> Int? {
    chunk.withUnsafeBytes { buffer -> Int? in
      guard let base = buffer.baseAddress,
        let found = memchr(base + position, 0x0A, filled - position)
      else { return nil }
      return base.distance(to: UnsafeRawPointer(found))
    }
  }

  private mutating func refill() {
    let count = chunk.withUnsafeMutableBytes { source($0) }
    position = 0
    filled = max(0, count)
    if count <= 0 { atEnd = true }
  }
}

public enum UTF8Check {
  /// The offset (0-based) of the first byte that is not part of valid UTF-8, or nil.
  public static func firstInvalidByte(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let scalar): offset += scalar.count
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }

  /// A message naming where `bytes` stop being UTF-8, or nil when they are valid.
  public static func problem(_ bytes: [UInt8]) -> String? {
    guard let offset = firstInvalidByte(bytes) else { return nil }
    let byte = String(bytes[offset], radix: 16, uppercase: true)
    return "not valid UTF-8 text: byte 0x\(byte.count == 1 ? "0" + byte : byte) at column \(offset + 1)"
  }
}
