import ApptUI
import CNCursesW
import Testing

@testable import ApptTerminal

/// What ncurses' `wget_wch` returns, decoded into keys without a terminal.
@Suite struct KeyDecoderTests {
  func characters(_ text: String) -> [KeyDecoder.Input] { text.unicodeScalars.map { .character($0.value) } }

  func decode(_ inputs: [KeyDecoder.Input]) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.decode(inputs)
  }

  @Test func functionKeysComeFromTheirKeyCodes() {
    let table: [(Int32, Key?)] = [
      (KEY_UP, .up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right), (KEY_PPAGE, .pageUp),
      (KEY_NPAGE, .pageDown), (KEY_HOME, .home), (KEY_END, .end), (KEY_BACKSPACE, .backspace), (KEY_DC, .delete),
      (KEY_BTAB, .backTab), (KEY_ENTER, .enter), (KEY_F0 + 1, nil), (KEY_RESIZE, nil),
    ]
    for (code, key) in table {
      #expect(NCursesTerminal.input(result: KEY_CODE_YES, character: wint_t(code)) == .key(key), "code \(code)")
    }
    // OK with a character: the character code, whatever it is.
    #expect(NCursesTerminal.input(result: OK, character: wint_t(KEY_UP)) == .character(UInt32(KEY_UP)))
    #expect(NCursesTerminal.input(result: OK, character: 0x4E2D) == .character(0x4E2D))
  }

  @Test func controlCharactersAreKeys() {
    #expect(decode([.character(13), .character(10)]) == [.enter, .enter])
    #expect(decode([.character(9), .character(127), .character(8)]) == [.tab, .backspace, .backspace])
    #expect(decode([.character(1), .character(21), .character(3)]) == [.control("a"), .control("u"), .control("c")])
    #expect(decode([.character(0), .character(28), .character(0x9B), .character(0xD800)]) == [], "no key")
    #expect(decode([.key(nil), .key(.up)]) == [.up])
  }

  @Test func wideAndComposedCharactersAreOneKeyEach() {
    #expect(decode(characters("中a")) == [.character("中"), .character("a")])
    #expect(decode(characters("e\u{301}")) == [.character("e\u{301}")], "a combining mark joins its letter")
    #expect(decode(characters("👩\u{200D}💻")) == [.character("👩\u{200D}💻")], "an emoji sequence is one key")
    #expect(decode(characters("🇫🇷")) == [.character("🇫🇷")])
  }

  @Test func aLoneEscapeIsTheEscKeyAndEscThenAKeyIsBoth() {
    #expect(decode([.character(27)]) == [.escape])
    #expect(decode([.character(27), .character(27)]) == [.escape, .escape])
    #expect(decode([.character(27), .character(0x78)]) == [.escape, .character("x")])
    #expect(decode([.character(27), .key(.up)]) == [.escape, .up])
    var decoder = KeyDecoder()
    #expect(decoder.decode([.character(27)], isEndOfRead: false) == [], "more may come in the same read")
    #expect(decoder.decode([.character(0x5B), .character(0x41)]) == [], "ESC [ A, split: still one sequence")
  }

  @Test func unknownSequencesAreSwallowedNotRunAsKeys() {
    // ctrl+right as some terminals send it, and an SS3 key: nothing of them becomes a key.
    #expect(decode(characters("\u{1B}[1;5Cj")) == [.character("j")])
    #expect(decode(characters("\u{1B}OPq")) == [.character("q")])
    // An absurdly long parameter string ends the sequence instead of growing.
    #expect(decode(characters("\u{1B}[" + String(repeating: "1", count: 100) + "j")).count < 100)
  }

  @Test func aBracketedPasteIsOneKey() {
    #expect(
      decode(characters("\u{1B}[200~hello\r\nworld q\u{1B}[201~j")) == [.paste("hello\r\nworld q"), .character("j")]
    )
    #expect(decode(characters("\u{1B}[200~\u{1B}[201~")) == [.paste("")])
    // An ESC inside that does not end it is text (the form leaves the ESC out).
    #expect(decode(characters("\u{1B}[200~a\u{1B}[20b\u{1B}\u{1B}[201~")) == [.paste("a[20b")])
    // Keys ncurses decoded inside a paste are not keys.
    #expect(decode(characters("\u{1B}[200~a") + [.key(.up)] + characters("b\u{1B}[201~")) == [.paste("ab")])
  }

  @Test func aPasteMayArriveInPieces() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(characters("\u{1B}[20")) == [])
    #expect(decoder.decode(characters("0~first ")) == [])
    #expect(decoder.isInPaste)
    #expect(decoder.decode(characters("second\u{1B}")) == [], "an ESC at the end of a read inside a paste waits")
    #expect(decoder.decode(characters("[201~")) == [.paste("first second")])
    #expect(!decoder.isInPaste)
  }

  @Test func aHugePasteIsCutToTheLimit() {
    var decoder = KeyDecoder()
    _ = decoder.decode(characters("\u{1B}[200~"))
    let chunk = [KeyDecoder.Input](repeating: .character(0x78), count: 50_000)
    for _ in 0..<5 { #expect(decoder.decode(chunk) == []) }
    let keys = decoder.decode(characters("\u{1B}[201~"))
    guard case .paste(let text) = keys.first else {
      Issue.record("no paste: \(keys)")
      return
    }
    #expect(text.unicodeScalars.count == KeyDecoder.maximumPaste)
  }
}
