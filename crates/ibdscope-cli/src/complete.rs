//! Shell completion scripts (`ibdscope completions bash|zsh|fish`), made
//! from the clap definition itself ([`crate::opts::cli`]): its subcommands,
//! each one's flags (the global ones included) and the choices of the
//! flags that have them (`--format` offers what that command offers). A
//! value without choices, and every positional argument, completes as a
//! file name.

use clap::{ValueEnum, ValueHint};
use std::fmt::Write;

/// A shell to complete for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// bash (source it, or put it in bash-completion's directory).
    Bash,
    /// zsh (put it on $fpath as _ibdscope).
    Zsh,
    /// fish (put it in ~/.config/fish/completions/ibdscope.fish).
    Fish,
}

/// One flag of a command.
#[derive(Debug)]
struct Flag {
    long: Option<String>,
    short: Option<char>,
    help: String,
    /// It takes a value.
    value: bool,
    /// The value's choices (none: a file name or free text).
    choices: Vec<String>,
    /// The value is a path.
    file: bool,
}

/// A command (the top level, or a subcommand) and its flags.
#[derive(Debug)]
struct Cmd {
    name: String,
    about: String,
    flags: Vec<Flag>,
}

/// The first sentence of a help text, on one line.
fn first_sentence(s: &str) -> String {
    let one = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = one
        .match_indices(". ")
        .map(|(i, _)| i)
        .find(|&i| !one[..i].ends_with("e.g") && !one[..i].ends_with("i.e"));
    match end {
        Some(i) => one[..i].to_string(),
        None => one.trim_end_matches('.').to_string(),
    }
}

fn flags(cmd: &clap::Command) -> Vec<Flag> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .map(|a| Flag {
            long: a.get_long().map(str::to_string),
            short: a.get_short(),
            help: first_sentence(&a.get_help().map(ToString::to_string).unwrap_or_default()),
            value: a.get_action().takes_values(),
            choices: a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect(),
            file: matches!(
                a.get_value_hint(),
                ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
            ),
        })
        .collect()
}

/// The top level and every visible subcommand, from the built command
/// (global flags copied into each subcommand, `--help` and `--version`
/// added).
fn model(mut cmd: clap::Command) -> (Cmd, Vec<Cmd>) {
    cmd.build();
    let top = Cmd {
        name: cmd.get_name().to_string(),
        about: String::new(),
        flags: flags(&cmd),
    };
    let subs = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| Cmd {
            name: s.get_name().to_string(),
            about: first_sentence(&s.get_about().map(ToString::to_string).unwrap_or_default()),
            flags: flags(s),
        })
        .collect();
    (top, subs)
}

/// The completion script for `shell`.
pub fn script(shell: Shell, cmd: clap::Command) -> String {
    let (top, subs) = model(cmd);
    match shell {
        Shell::Bash => bash(&top, &subs),
        Shell::Zsh => zsh(&top, &subs),
        Shell::Fish => fish(&top, &subs),
    }
}

/// A flag's spellings: `--format`, `-v --verbose`.
fn spellings(f: &Flag) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(c) = f.short {
        v.push(format!("-{c}"));
    }
    if let Some(l) = &f.long {
        v.push(format!("--{l}"));
    }
    v
}

/// bash: `$prev` a flag with choices offers them, one with a free value
/// offers nothing (bash's default: file names); a word starting with `-`
/// offers the command's flags; any other word, the subcommands (before
/// one) or file names.
fn bash(top: &Cmd, subs: &[Cmd]) -> String {
    let name = &top.name;
    let fun = format!("_{}", name.replace('-', "_"));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# bash completion for {name} (made by `{name} completions bash`)"
    );
    let _ = writeln!(s, "{fun}() {{");
    s.push_str(
        "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n",
    );
    s.push_str("    local sub=\"\" i\n");
    s.push_str("    for ((i = 1; i < COMP_CWORD; i++)); do\n");
    s.push_str("        case \"${COMP_WORDS[i]}\" in\n");
    let top_valued: Vec<String> = top
        .flags
        .iter()
        .filter(|f| f.value)
        .flat_map(spellings)
        .collect();
    if !top_valued.is_empty() {
        let _ = writeln!(s, "            {}) ((i++)) ;;", top_valued.join("|"));
    }
    s.push_str("            -*) ;;\n");
    s.push_str("            *) sub=\"${COMP_WORDS[i]}\"; break ;;\n");
    s.push_str("        esac\n    done\n");
    s.push_str("    local opts\n    case \"$sub\" in\n");
    let names: Vec<&str> = subs.iter().map(|c| c.name.as_str()).collect();
    bash_case(&mut s, "\"\"", top);
    for c in subs {
        bash_case(&mut s, &c.name, c);
    }
    s.push_str("    esac\n");
    s.push_str("    if [[ $cur == -* ]]; then\n");
    s.push_str("        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n");
    s.push_str("    elif [[ -z $sub ]]; then\n");
    let _ = writeln!(
        s,
        "        COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))",
        names.join(" ")
    );
    s.push_str("    fi\n}\n");
    let _ = writeln!(s, "complete -o default -F {fun} {name}");
    s
}

/// One `case` arm of the bash function: the command's flags, and the
/// choices after a flag that has them.
fn bash_case(s: &mut String, pattern: &str, c: &Cmd) {
    let all: Vec<String> = c.flags.iter().flat_map(spellings).collect();
    let _ = writeln!(s, "        {pattern})");
    let _ = writeln!(s, "            opts=\"{}\"", all.join(" "));
    let valued: Vec<&Flag> = c.flags.iter().filter(|f| f.value).collect();
    if !valued.is_empty() {
        s.push_str("            case \"$prev\" in\n");
        for f in valued {
            let words = if f.choices.is_empty() {
                "return".to_string()
            } else {
                format!(
                    "COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return",
                    f.choices.join(" ")
                )
            };
            let _ = writeln!(s, "                {}) {words} ;;", spellings(f).join("|"));
        }
        s.push_str("            esac\n");
    }
    s.push_str("            ;;\n");
}

/// Text inside a zsh single-quoted `_arguments` spec: `'` closed and
/// reopened, and the spec's own brackets and colons escaped.
fn zsh_text(t: &str) -> String {
    let mut o = String::new();
    for ch in t.chars() {
        match ch {
            '\'' => o.push_str("'\\''"),
            '[' | ']' | ':' | '\\' => {
                o.push('\\');
                o.push(ch);
            }
            _ => o.push(ch),
        }
    }
    o
}

/// A flag as `_arguments` specs.
fn zsh_spec(f: &Flag) -> String {
    let help = zsh_text(&f.help);
    let value = if !f.value {
        String::new()
    } else if f.file {
        ":file:_files".to_string()
    } else if f.choices.is_empty() {
        ":value: ".to_string()
    } else {
        format!(":value:({})", f.choices.join(" "))
    };
    let eq = if f.value && f.short.is_none() {
        "="
    } else {
        ""
    };
    let names = spellings(f);
    match names.as_slice() {
        [one] => format!("'{one}{eq}[{help}]{value}'"),
        _ => format!(
            "'({all})'{{{list}}}'[{help}]{value}'",
            all = names.join(" "),
            list = names.join(",")
        ),
    }
}

/// zsh: `_arguments` for the top level, then for the subcommand named.
fn zsh(top: &Cmd, subs: &[Cmd]) -> String {
    let name = &top.name;
    let fun = format!("_{}", name.replace('-', "_"));
    let mut s = String::new();
    let _ = writeln!(s, "#compdef {name}");
    let _ = writeln!(
        s,
        "# zsh completion for {name} (made by `{name} completions zsh`)"
    );
    let _ = writeln!(s, "{fun}() {{");
    s.push_str("    local curcontext=\"$curcontext\" state line ret=1\n");
    s.push_str("    typeset -A opt_args\n");
    s.push_str("    _arguments -C \\\n");
    for f in &top.flags {
        let _ = writeln!(s, "        {} \\", zsh_spec(f));
    }
    let _ = writeln!(s, "        '1: :{fun}_commands' \\");
    s.push_str("        '*:: :->args' && ret=0\n");
    s.push_str("    case $state in\n    args)\n        case $line[1] in\n");
    for c in subs {
        let _ = writeln!(s, "        {})", c.name);
        s.push_str("            _arguments \\\n");
        for f in &c.flags {
            let _ = writeln!(s, "                {} \\", zsh_spec(f));
        }
        s.push_str("                '*:file:_files' && ret=0\n            ;;\n");
    }
    s.push_str("        esac\n        ;;\n    esac\n    return ret\n}\n\n");
    let _ = writeln!(s, "{fun}_commands() {{");
    s.push_str("    local -a commands\n    commands=(\n");
    for c in subs {
        let about = c.about.replace('\'', "'\\''").replace(':', "\\:");
        let _ = writeln!(s, "        '{}:{about}'", c.name);
    }
    s.push_str("    )\n");
    let _ = writeln!(s, "    _describe -t commands '{name} command' commands");
    s.push_str("}\n\n");
    s.push_str("if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n");
    let _ = writeln!(s, "    {fun} \"$@\"\nelse\n    compdef {fun} {name}\nfi");
    s
}

/// Text inside a fish single-quoted string.
fn fish_text(t: &str) -> String {
    t.replace('\\', "\\\\").replace('\'', "\\'")
}

/// One fish `complete` line per flag.
fn fish_flags(s: &mut String, name: &str, cond: &str, c: &Cmd) {
    for f in &c.flags {
        let mut line = format!("complete -c {name} -n '{cond}'");
        if let Some(l) = &f.long {
            let _ = write!(line, " -l {l}");
        }
        if let Some(ch) = f.short {
            let _ = write!(line, " -s {ch}");
        }
        if f.value && f.file {
            line.push_str(" -r -F");
        } else if f.value && f.choices.is_empty() {
            line.push_str(" -x");
        } else if f.value {
            let _ = write!(line, " -x -a '{}'", fish_text(&f.choices.join(" ")));
        }
        let _ = writeln!(s, "{line} -d '{}'", fish_text(&f.help));
    }
}

/// fish: the subcommands before one is given, then that one's flags;
/// file names wherever a subcommand is given.
fn fish(top: &Cmd, subs: &[Cmd]) -> String {
    let name = &top.name;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# fish completion for {name} (made by `{name} completions fish`)"
    );
    let _ = writeln!(s, "complete -c {name} -f");
    fish_flags(&mut s, name, "__fish_use_subcommand", top);
    for c in subs {
        let _ = writeln!(
            s,
            "complete -c {name} -n '__fish_use_subcommand' -a {} -d '{}'",
            c.name,
            fish_text(&c.about)
        );
    }
    for c in subs {
        let cond = format!("__fish_seen_subcommand_from {}", c.name);
        let _ = writeln!(s, "complete -c {name} -n '{cond}' -F");
        fish_flags(&mut s, name, &cond, c);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::process::Command;

    /// The words a completion offers must be the clap definition's: every
    /// visible subcommand, and every flag of every subcommand.
    fn want() -> (BTreeSet<String>, Vec<(String, BTreeSet<String>)>) {
        let mut cmd = crate::opts::cli();
        cmd.build();
        let subs: BTreeSet<String> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect();
        let flags = cmd
            .get_subcommands()
            .map(|s| {
                let f = s
                    .get_arguments()
                    .filter(|a| !a.is_positional() && !a.is_hide_set())
                    .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                    .collect();
                (s.get_name().to_string(), f)
            })
            .collect();
        (subs, flags)
    }

    fn write_script(shell: Shell) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ibdscope-complete-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{shell:?}"));
        std::fs::write(&path, script(shell, crate::opts::cli())).unwrap();
        path
    }

    fn has(shell: &str) -> bool {
        let ok = Command::new(shell)
            .args(["-c", "exit 0"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: {shell} is not installed: its completion script is not checked");
        }
        ok
    }

    fn syntax_ok(shell: &str, path: &std::path::Path) {
        let out = Command::new(shell).arg("-n").arg(path).output().unwrap();
        assert!(
            out.status.success(),
            "{shell} -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// What bash's completion function offers for `line` (the last word
    /// the one being completed).
    fn bash_offers(path: &std::path::Path, line: &[&str]) -> BTreeSet<String> {
        let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
        let prog = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _ibdscope; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display(),
            words.join(" "),
            line.len() - 1
        );
        let out = Command::new("bash").args(["-c", &prog]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn bash_offers_every_subcommand_flag_and_choice() {
        if !has("bash") {
            return;
        }
        let path = write_script(Shell::Bash);
        syntax_ok("bash", &path);
        let (subs, flags) = want();
        assert!(subs.len() >= 19 && subs.contains("rows"), "{subs:?}");
        assert_eq!(bash_offers(&path, &["ibdscope", ""]), subs);
        // A global flag's value is skipped when finding the subcommand.
        assert_eq!(
            bash_offers(&path, &["ibdscope", "--threads", "4", "ro"]),
            BTreeSet::from(["rows".to_string()])
        );
        for (sub, want) in &flags {
            let got = bash_offers(&path, &["ibdscope", sub, "--"]);
            assert_eq!(&got, want, "{sub}");
        }
        let formats = bash_offers(&path, &["ibdscope", "rows", "x.ibd", "--format", ""]);
        assert_eq!(formats.len(), 6, "{formats:?}");
        let formats = bash_offers(&path, &["ibdscope", "info", "--format", ""]);
        let want: BTreeSet<String> = ["text", "json"].map(String::from).into();
        assert_eq!(formats, want);
    }

    #[test]
    fn fish_offers_every_subcommand_flag_and_choice() {
        if !has("fish") {
            return;
        }
        let path = write_script(Shell::Fish);
        syntax_ok("fish", &path);
        let offers = |line: &str| -> BTreeSet<String> {
            let prog = format!("source '{}'; complete -C '{line}'", path.display());
            let out = Command::new("fish").args(["-c", &prog]).output().unwrap();
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .filter_map(|l| l.split('\t').next())
                .map(str::to_string)
                .collect()
        };
        let (subs, flags) = want();
        assert_eq!(offers("ibdscope "), subs);
        for (sub, want) in &flags {
            let got = offers(&format!("ibdscope {sub} --"));
            assert_eq!(&got, want, "{sub}");
        }
        let want: BTreeSet<String> = ["text", "json"].map(String::from).into();
        assert_eq!(offers("ibdscope info --format "), want);
    }

    #[test]
    fn zsh_names_every_subcommand_and_flag() {
        let path = write_script(Shell::Zsh);
        let text = std::fs::read_to_string(&path).unwrap();
        if has("zsh") {
            syntax_ok("zsh", &path);
        }
        // Without a terminal zsh cannot be asked what it would offer: the
        // script's words stand for it, each subcommand's flags in its own
        // arm.
        let (subs, flags) = want();
        let lines: Vec<&str> = text.lines().collect();
        for sub in &subs {
            assert!(
                lines
                    .iter()
                    .any(|l| l.trim().starts_with(&format!("'{sub}:"))),
                "{sub}"
            );
        }
        for (sub, want) in &flags {
            let arm = text
                .split(&format!("\n        {sub})\n"))
                .nth(1)
                .and_then(|rest| rest.split(";;").next())
                .unwrap_or_else(|| panic!("no arm for {sub}"));
            for flag in want {
                assert!(
                    arm.contains(&format!("'{flag}["))
                        || arm.contains(&format!("'{flag}=["))
                        || arm.contains(&format!(",{flag}}}")),
                    "{sub}: {flag} missing"
                );
            }
        }
        assert!(
            text.contains(":value:(text json jsonl csv tsv sql)"),
            "rows' formats"
        );
    }
}
