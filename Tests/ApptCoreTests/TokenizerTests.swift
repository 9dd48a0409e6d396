import Testing

@testable import ApptCore

@Suite("Tokenizer")
struct TokenizerTests {
  @Test("whitespace separates words; runs of spaces, tabs and CR count once")
  func whitespace() throws {
    #expect(try Tokenizer.split("add  Dentist\t--at today\r") == ["add", "Dentist", "--at", "today"])
  }

  @Test("blank and comment-only lines give no words", arguments: ["", "   ", "\t", "# a comment", "   # indented"])
  func blank(line: String) throws {
    #expect(try Tokenizer.split(line) == [])
  }

  @Test("# starts a comment only at the start of a word")
  func comments() throws {
    #expect(try Tokenizer.split("list # show the week") == ["list"])
    #expect(try Tokenizer.split("add a#b --note #1") == ["add", "a#b", "--note"])
    #expect(try Tokenizer.split("add '#1' \"#2\" \\#3") == ["add", "#1", "#2", "#3"])
  }

  @Test("single quotes keep everything literally, backslashes included")
  func singleQuotes() throws {
    #expect(
      try Tokenizer.split(#"add 'Lunch with "Bob"' 'a\b' '$HOME'"#) == ["add", #"Lunch with "Bob""#, #"a\b"#, "$HOME"]
    )
  }

  @Test("double quotes: backslash escapes only \" \\ $ and `")
  func doubleQuotes() throws {
    #expect(try Tokenizer.split(#""say \"hi\"""#) == [#"say "hi""#])
    #expect(try Tokenizer.split(#""a\\b""#) == [#"a\b"#])
    #expect(try Tokenizer.split(#""\$x \`y\`""#) == ["$x `y`"])
    #expect(try Tokenizer.split(#""C:\temp\new""#) == [#"C:\temp\new"#])
  }

  @Test("a backslash outside quotes escapes the next character")
  func backslash() throws {
    #expect(try Tokenizer.split(#"add Lunch\ with\ Bob"#) == ["add", "Lunch with Bob"])
    #expect(try Tokenizer.split(#"a\'b \"c\""#) == ["a'b", "\"c\""])
    #expect(try Tokenizer.split(#"a\\b"#) == [#"a\b"#])
  }

  @Test("quotes join with adjacent text into one word")
  func adjacency() throws {
    #expect(try Tokenizer.split(#"a"b c"d'e f'g"#) == ["ab cde fg"])
  }

  @Test("empty quotes give an empty word")
  func emptyWords() throws {
    #expect(try Tokenizer.split(#"edit abcd --note """#) == ["edit", "abcd", "--note", ""])
    #expect(try Tokenizer.split("'' x") == ["", "x"])
  }

  @Test("non-ASCII text passes through")
  func unicode() throws {
    #expect(try Tokenizer.split("add 'Café ☕️' --note naïve") == ["add", "Café ☕️", "--note", "naïve"])
  }

  @Test("unterminated double quote")
  func unterminatedDouble() {
    let error = commandError { () throws(CommandError) in try Tokenizer.split(#"add "Dentist --at today"#) }
    #expect(error == .invalid(#"unterminated double quote in: add "Dentist --at today"#))
  }

  @Test("unterminated single quote")
  func unterminatedSingle() {
    let error = commandError { () throws(CommandError) in try Tokenizer.split("add 'Dentist") }
    #expect(error == .invalid("unterminated single quote in: add 'Dentist"))
  }

  @Test("a double quote ending in an escaped quote is still unterminated")
  func escapedClosingQuote() {
    let error = commandError { () throws(CommandError) in try Tokenizer.split(#"add "x\""#) }
    #expect(error?.kind == .invalid)
    #expect(error?.message.hasPrefix("unterminated double quote") == true)
  }

  @Test("a trailing backslash is an error")
  func trailingBackslash() {
    let error = commandError { () throws(CommandError) in try Tokenizer.split(#"add x\"#) }
    #expect(error?.kind == .invalid)
    #expect(error?.message.contains("trailing backslash") == true)
  }

  @Test("error messages escape control characters of the line")
  func escapedErrors() {
    let error = commandError { () throws(CommandError) in try Tokenizer.split("add \u{1B}[2J \"x") }
    #expect(error?.message == "unterminated double quote in: add ^[[2J \"x")
  }

  @Test("backslash-newline is a line continuation, inside double quotes too")
  func continuation() throws {
    #expect(try Tokenizer.split("add Lun\\\nch \"a\\\nb\"") == ["add", "Lunch", "ab"])
    #expect(try Tokenizer.split("'a\\\nb'") == ["a\\\nb"])
  }

  @Test("nothing is expanded")
  func noExpansion() throws {
    #expect(try Tokenizer.split("list $HOME ~ *") == ["list", "$HOME", "~", "*"])
  }
}
