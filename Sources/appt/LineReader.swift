import Glibc

/// Reads stdin line by line as bytes, so invalid UTF-8 is reported instead of being replaced
/// with U+FFFD behind the user's back (which `readLine` does).
struct LineReader {
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false

  /// The next line without its newline, or nil at the end of input.
  mutating func next() -> [UInt8]? {
    while true {
      if let newline = buffer[start...].firstIndex(of: 0x0A) {
        let line = Array(buffer[start..<newline])
        start = newline + 1
        return line
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        let line = Array(buffer[start...])
        start = buffer.count
        return line
      }
      fill()
    }
  }

  private mutating func fill() {
    if start > 0 {
      buffer.removeFirst(start)
      start = 0
    }
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      if count <= 0 {
        atEnd = true
        return
      }
      buffer += chunk[..<count]
      return
    }
  }
}

enum UTF8Check {
  /// The offset (0-based) of the first byte that is not part of valid UTF-8, or nil.
  static func firstInvalidByte(_ bytes: [UInt8]) -> Int? {
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
  static func problem(_ bytes: [UInt8]) -> String? {
    guard let offset = firstInvalidByte(bytes) else { return nil }
    let byte = String(bytes[offset], radix: 16, uppercase: true)
    return "not valid UTF-8 text: byte 0x\(byte.count == 1 ? "0" + byte : byte) at column \(offset + 1)"
  }
}
