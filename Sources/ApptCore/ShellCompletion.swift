/// `appt completion bash|zsh|fish`: tab completion scripts, generated from the grammar
/// (`CommandHelp`'s usage lines), so a new command or option is completed without anyone
/// remembering to teach the shells.
///
/// They complete commands, each command's options, the values of options with a fixed set
/// (`--repeat daily|weekly|...`), calendar names (after `--calendar`, `-c`, `--move-to` and in
/// `calendar ...`), id prefixes (what `list --format '{short_id}'` prints for the days around
/// today: the ids a person is likely to want) and file names. A store named on the line
/// (`--db`, `--config`) is the one asked.
public enum ShellCompletion: String, CaseIterable, Sendable {
  case bash, zsh, fish

  /// One command as completion sees it.
  public struct Entry: Sendable, Equatable {
    public var name: String
    /// Every option its usage line names, `--calendar` with its short `-c`.
    public var options: [String]
    /// The options that take a value (the next word is not an option).
    public var valued: Set<String>
    /// Values of options that take one of a fixed set.
    public var choices: [String: [String]]
    /// What a word that is not an option is.
    public var argument: Argument
  }

  public enum Argument: Sendable, Equatable {
    case none, id, file, command, shell, calendarWords
  }

  /// The global options (before the command).
  public static let globalOptions = ["--db", "--config", "--json", "--bail", "--help", "--version"]
  static let globalValued: Set<String> = ["--db", "--config"]

  /// The options whose value is a calendar's name.
  static let calendarOptions: Set<String> = ["--calendar", "-c", "--move-to"]

  /// The ids offered: those from 30 days back to 90 days ahead.
  static let idList = "list --from=-30d --days 120 --format '{short_id}'"

  /// The `calendar` command's first words.
  public static let calendarSubcommands = ["add", "rename", "color", "delete", "show", "hide", "sync", "unsync"]

  /// The commands and their options, read from the usage lines.
  public static var entries: [Entry] {
    CommandHelp.usages.map { name, usage in
      var options: [String] = []
      var valued: Set<String> = []
      var choices: [String: [String]] = [:]
      // "[--to WHEN | --days N]", "--repeat daily|weekly": words apart, a word's own | kept.
      let words = usage.split(whereSeparator: { $0 == " " || $0 == "[" || $0 == "]" }).map(String.init)
      for (index, word) in words.enumerated() where word.hasPrefix("--") {
        let option = String(word.prefix { $0 == "-" || $0.isLetter })
        guard option.count > 2, !options.contains(option) else { continue }
        options.append(option)
        guard index + 1 < words.count else { continue }
        let next = words[index + 1]
        if next.first?.isUppercase == true || next.first == "'" { valued.insert(option) }
        let values = next.split(separator: "|").map(String.init)
        if values.count > 1, values.allSatisfy({ $0.allSatisfy(\.isLowercase) }) {
          valued.insert(option)
          choices[option] = values
        }
      }
      if options.contains("--calendar") {
        options.append("-c")
        valued.insert("-c")
      }
      return Entry(name: name, options: options, valued: valued, choices: choices, argument: argument(of: name))
    }
  }

  static func argument(of command: String) -> Argument {
    switch command {
    case "show", "edit", "cancel", "restore", "delete", "resolve": .id
    case "import", "export", "backup": .file
    case "help": .command
    case "completion": .shell
    case "calendar": .calendarWords
    default: .none
    }
  }

  /// The script for this shell.
  public var script: String {
    switch self {
    case .bash: Self.bashScript(Self.entries)
    case .zsh: Self.zshScript(Self.entries)
    case .fish: Self.fishScript(Self.entries)
    }
  }

  static func words(_ list: [String]) -> String { list.joined(separator: " ") }

  /// The `case` arms, in shell syntax, that choose what follows an option taking a value.
  static func valueArms(_ entries: [Entry], calendars: String, choices: (String) -> String, nothing: String)
    -> [String]
  {
    var arms: [String] = []
    for entry in entries {
      for option in entry.options where entry.valued.contains(option) {
        let pattern = "\(entry.name):\(option)"
        if calendarOptions.contains(option) {
          arms.append("\(pattern)) \(calendars); return ;;")
        } else if let values = entry.choices[option] {
          arms.append("\(pattern)) \(choices(words(values))); return ;;")
        } else {
          arms.append("\(pattern)) \(nothing) ;;")
        }
      }
    }
    return arms
  }

  static func bashScript(_ entries: [Entry]) -> String {
    let optionArms = entries.map { "    \($0.name)) opts=\"\(words($0.options))\" ;;" }
    let valueArms = valueArms(
      entries,
      calendars: "_appt_calendars",
      choices: { "COMPREPLY=($(compgen -W \"\($0)\" -- \"$cur\"))" },
      nothing: "COMPREPLY=(); return"
    ).map { "    " + $0 }
    return """
      # bash completion for appt (`appt completion bash`), generated from its grammar.
      # Install: appt completion bash > ~/.local/share/bash-completion/completions/appt

      _appt_calendars() {
        local IFS=$'\\n' names
        names=$(command appt "${_appt_store[@]}" --json calendars 2>/dev/null |
          sed -n 's/^{"name":"\\(\\([^"\\\\]\\|\\\\.\\)*\\)".*/\\1/p')
        COMPREPLY=($(compgen -W "$names" -- "$cur"))
        local i
        for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=$(printf '%q' "${COMPREPLY[i]}"); done
      }

      _appt_ids() {
        local IFS=$'\\n'
        COMPREPLY=($(compgen -W "$(command appt "${_appt_store[@]}" \(idList) 2>/dev/null)" -- "$cur"))
      }

      _appt() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
        local cmd="" at=0 i
        _appt_store=()
        for ((i = 1; i < COMP_CWORD; i++)); do
          case ${COMP_WORDS[i]} in
            --db|--config) _appt_store+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}"); ((i++)) ;;
            --db=*|--config=*) _appt_store+=("${COMP_WORDS[i]}") ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; at=$i; break ;;
          esac
        done
        if [[ -z $cmd ]]; then
          case $prev in
            --db|--config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
          esac
          if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "\(words(globalOptions))" -- "$cur"))
          else
            COMPREPLY=($(compgen -W "\(words(entries.map(\.name)))" -- "$cur"))
          fi
          return
        fi
        case "$cmd:$prev" in
      \(valueArms.joined(separator: "\n"))
        esac
        if [[ $cur == -* ]]; then
          local opts=""
          case $cmd in
      \(optionArms.joined(separator: "\n"))
          esac
          COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
          return
        fi
        case $cmd in
          \(commandsTaking(.id, entries))) _appt_ids ;;
          \(commandsTaking(.file, entries))) COMPREPLY=($(compgen -f -- "$cur")) ;;
          help) COMPREPLY=($(compgen -W "\(words(entries.map(\.name)))" -- "$cur")) ;;
          completion) COMPREPLY=($(compgen -W "\(words(allCases.map(\.rawValue)))" -- "$cur")) ;;
          calendar)
            if [[ $COMP_CWORD -eq $((at + 1)) ]]; then
              COMPREPLY=($(compgen -W "\(words(calendarSubcommands))" -- "$cur"))
            elif [[ ${COMP_WORDS[at+1]} != add ]]; then
              _appt_calendars
            fi
            ;;
        esac
      }
      complete -F _appt appt

      """
  }

  static func commandsTaking(_ argument: Argument, _ entries: [Entry]) -> String {
    entries.filter { $0.argument == argument }.map(\.name).joined(separator: "|")
  }

  static func zshScript(_ entries: [Entry]) -> String {
    let optionArms = entries.map { "    (\($0.name)) opts=(\(words($0.options))) ;;" }
    let valueArms = valueArms(
      entries,
      calendars: "_appt_calendars",
      choices: { "compadd -- \($0)" },
      nothing: "return"
    ).map { "    (" + $0 }
    return """
      #compdef appt
      # zsh completion for appt (`appt completion zsh`), generated from its grammar.
      # Install: appt completion zsh > "${fpath[1]}/_appt"

      _appt_calendars() {
        local -a names
        names=(${(f)"$(command appt $_appt_store --json calendars 2>/dev/null |
          sed -n 's/^{"name":"\\(\\([^"\\\\]\\|\\\\.\\)*\\)".*/\\1/p')"})
        compadd -- $names
        return
      }

      _appt() {
        local cmd="" at=0 i prev=${words[CURRENT-1]}
        typeset -ga _appt_store
        _appt_store=()
        for ((i = 2; i < CURRENT; i++)); do
          case ${words[i]} in
            (--db|--config) _appt_store+=(${words[i]} ${words[i+1]}); ((i++)) ;;
            (--db=*|--config=*) _appt_store+=(${words[i]}) ;;
            (-*) ;;
            (*) cmd=${words[i]}; at=$i; break ;;
          esac
        done
        if [[ -z $cmd ]]; then
          case $prev in
            (--db|--config) _files; return ;;
          esac
          if [[ $PREFIX == -* ]]; then
            compadd -- \(words(globalOptions))
          else
            compadd -- \(words(entries.map(\.name)))
          fi
          return
        fi
        case "$cmd:$prev" in
      \(valueArms.joined(separator: "\n"))
        esac
        if [[ $PREFIX == -* ]]; then
          local -a opts
          case $cmd in
      \(optionArms.joined(separator: "\n"))
          esac
          compadd -- $opts --help
          return
        fi
        case $cmd in
          (\(commandsTaking(.id, entries))) compadd -- ${(f)"$(command appt $_appt_store \(idList) 2>/dev/null)"} ;;
          (\(commandsTaking(.file, entries))) _files ;;
          (help) compadd -- \(words(entries.map(\.name))) ;;
          (completion) compadd -- \(words(allCases.map(\.rawValue))) ;;
          (calendar)
            if (( CURRENT == at + 1 )); then
              compadd -- \(words(calendarSubcommands))
            elif [[ ${words[at+1]} != add ]]; then
              _appt_calendars
            fi
            ;;
        esac
      }

      _appt "$@"

      """
  }

  static func fishScript(_ entries: [Entry]) -> String {
    var lines = [
      "# fish completion for appt (`appt completion fish`), generated from its grammar.",
      "# Install: appt completion fish > ~/.config/fish/completions/appt.fish",
      "",
      "function __appt_store",
      "    set -l words (commandline -opc)",
      "    for i in (seq 2 (count $words))",
      "        switch $words[$i]",
      "            case --db --config",
      "                set -l next (math $i + 1)",
      "                test $next -le (count $words); and echo $words[$i]; and echo $words[$next]",
      "            case '--db=*' '--config=*'",
      "                echo $words[$i]",
      "        end",
      "    end",
      "end",
      "",
      "function __appt_calendars",
      "    command appt (__appt_store) --json calendars 2>/dev/null | "
        + "sed -n 's/^{\"name\":\"\\(\\([^\"\\\\]\\|\\\\.\\)*\\)\".*/\\1/p'",
      "end",
      "",
      "complete -c appt -f",
      "complete -c appt -n __fish_use_subcommand -a '\(words(entries.map(\.name)))'",
      "complete -c appt -n __fish_use_subcommand -l db -r -F -d 'SQLite file or postgresql:// URL'",
      "complete -c appt -n __fish_use_subcommand -l config -r -F -d 'settings file'",
      "complete -c appt -n __fish_use_subcommand -l json -d 'JSON Lines output'",
      "complete -c appt -n __fish_use_subcommand -l bail -d 'stop a script at the first error'",
    ]
    for entry in entries {
      let seen = "'__fish_seen_subcommand_from \(entry.name)'"
      for option in entry.options where option != "-c" {
        var line = "complete -c appt -n \(seen) -l \(option.dropFirst(2))"
        if option == "--calendar" { line += " -s c" }
        if entry.valued.contains(option) {
          line += " -x"  // a value, not a file
          if calendarOptions.contains(option) {
            line += " -a '(__appt_calendars)'"
          } else if let values = entry.choices[option] {
            line += " -a '\(words(values))'"
          }
        }
        lines.append(line)
      }
      switch entry.argument {
      case .id:
        // `calendar show NAME` is not `show ID`.
        let onlyThis = "'__fish_seen_subcommand_from \(entry.name); and not __fish_seen_subcommand_from calendar'"
        let ids = idList.replacingOccurrences(of: "'", with: "\\'")
        lines.append("complete -c appt -n \(onlyThis) -a '(command appt (__appt_store) \(ids) 2>/dev/null)'")
      case .file: lines.append("complete -c appt -n \(seen) -F")
      case .command: lines.append("complete -c appt -n \(seen) -a '\(words(entries.map(\.name)))'")
      case .shell: lines.append("complete -c appt -n \(seen) -a '\(words(allCases.map(\.rawValue)))'")
      case .calendarWords:
        lines.append(
          "complete -c appt -n '__fish_seen_subcommand_from calendar; and not __fish_seen_subcommand_from "
            + "\(words(calendarSubcommands))' -a '\(words(calendarSubcommands))'"
        )
        lines.append(
          "complete -c appt -n '__fish_seen_subcommand_from calendar; and __fish_seen_subcommand_from "
            + "rename color delete show hide sync unsync' -a '(__appt_calendars)'"
        )
      case .none: break
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
