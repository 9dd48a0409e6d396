/// The JSON of `Appointment.extrasText`, as `JSONEncoder` writes it.
struct ExtrasJSON {
  private(set) var text = ""
  private var needsComma = false

  mutating func object(_ body: (inout ExtrasJSON) -> Void) {
    open("{")
    body(&self)
    close("}")
  }

  mutating func array<Element>(_ elements: [Element], _ body: (inout ExtrasJSON, Element) -> Void) {
    open("[")
    for element in elements { body(&self, element) }  // each value writes its own comma
    close("]")
  }

  mutating func strings(_ values: [String]) { array(values) { json, value in json.string(value) } }

  /// A member: its name, then its value.
  mutating func field(_ name: String, _ value: String) {
    key(name)
    string(value)
  }

  mutating func field(_ name: String, _ values: [String]) {
    key(name)
    strings(values)
  }

  mutating func field(_ name: String, _ value: Double) {
    key(name)
    number(value)
  }

  /// A member's name; its value follows.
  mutating func key(_ name: String) {
    separate()
    append(name)
    text += ":"
    needsComma = false
  }

  mutating func string(_ value: String) {
    separate()
    append(value)
  }

  /// A number as `JSONEncoder` writes a `Double`: its shortest form, without a ".0".
  mutating func number(_ value: Double) {
    separate()
    var digits = value.description
    if digits.hasSuffix(".0") { digits.removeLast(2) }
    text += digits
  }

  private mutating func open(_ bracket: String) {
    separate()
    text += bracket
    needsComma = false
  }

  private mutating func close(_ bracket: String) {
    text += bracket
    needsComma = true
  }

  private mutating func separate() {
    if needsComma { text += "," }
    needsComma = true
  }

  /// A JSON string: `"` and `\` escaped, controls as `\n`-style or `\u00XX` escapes.
  private mutating func append(_ value: String) {
    text += "\""
    var plainFrom = value.utf8.startIndex
    var index = plainFrom
    let utf8 = value.utf8
    while index != utf8.endIndex {
      let byte = utf8[index]
      if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
        index = utf8.index(after: index)
        continue
      }
      text += String(value[plainFrom..<index])
      switch byte {
      case 0x22: text += "\\\""
      case 0x5C: text += "\\\\"
      case 0x0A: text += "\\n"
      case 0x0D: text += "\\r"
      case 0x09: text += "\\t"
      case 0x08: text += "\\b"
      case 0x0C: text += "\\f"
      default:
        let hex = String(byte, radix: 16)
        text += "\\u00" + (hex.count == 1 ? "0" : "") + hex
      }
      index = utf8.index(after: index)
      plainFrom = index
    }
    text += String(value[plainFrom..<utf8.endIndex])
    text += "\""
  }
}
