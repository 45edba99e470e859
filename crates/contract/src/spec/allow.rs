//! `serve --allow-command` and `--allow-env`: which stdio servers the service may start.
//!
//! - **An entry is a command with the arguments it admits**: `node /opt/mcp/*/index.js
//!   stdio` admits `node` run with exactly three arguments matching those three patterns.
//!   The entry is split into words like a shell line (`'…'` and `"…"` quote, `\` escapes).
//!   The first word is the command: a bare name admits exactly that bare command (found on
//!   the service's `PATH`), a path admits exactly that path. Every other word is a
//!   shell-style glob matched against the argument in the same position: `*` matches any
//!   run of characters except `/`, `?` one character except `/`, `[abc]`/`[a-z]`/`[!a]` a
//!   class, `{a,b}` alternatives; a wildcard never matches a `..` path segment; and the
//!   server must give exactly one argument per pattern (no more, no fewer). An entry with
//!   no patterns admits the command with no arguments at all.
//! - **Interpreters and launchers** ([`is_launcher`]: `node`, `python3`, `deno`, `bun`,
//!   `npx`, `uvx`, `sh`, `bash`, `env`, …) given without argument patterns are refused when
//!   the list is built (`serve` does not start): `node -e …` or `npx any-package` would run
//!   anything.
//! - **Environment variables** are admitted, not refused: a stdio server may set only the
//!   variables named by `--allow-env NAME` (exact names, or globs such as `MCP_*`); any
//!   other is 403 `FORBIDDEN` with reason `ENV_NOT_ALLOWED` and `details.variable`. So
//!   `OPENSSL_CONF`, `LD_PRELOAD` or `NODE_OPTIONS` are refused unless an operator admits
//!   them by name. Whatever `--allow-env` says, a command admitted by bare name may not set
//!   its own `PATH`, and one admitted as a relative path (`./srv.sh`) may not set its own
//!   `cwd`, or the name could resolve to another program.
//! - Refusals are 403 `FORBIDDEN` with reason `COMMAND_NOT_ALLOWED` (`details.allowedCommands`
//!   lists the entries) or `ENV_NOT_ALLOWED`.

use globset::{GlobBuilder, GlobMatcher};
use serde_json::json;

use super::error::Error;
use super::server::Transport;

/// Interpreters, shells and package launchers: given any arguments they run any code, so
/// an entry naming one must say which arguments it admits. Matched on the command's file
/// name (`/usr/bin/node` is `node`; `python3.12` is a `python`).
pub fn is_launcher(command: &str) -> bool {
    const NAMES: &[&str] = &[
        "node",
        "nodejs",
        "deno",
        "bun",
        "bunx",
        "npx",
        "npm",
        "pnpm",
        "pnpx",
        "yarn",
        "corepack",
        "tsx",
        "ts-node",
        "uv",
        "uvx",
        "pip",
        "pipx",
        "poetry",
        "pdm",
        "hatch",
        "conda",
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "ash",
        "busybox",
        "env",
        "xargs",
        "nohup",
        "nice",
        "timeout",
        "sudo",
        "doas",
        "su",
        "exec",
        "perl",
        "ruby",
        "php",
        "lua",
        "luajit",
        "java",
        "jshell",
        "dotnet",
        "go",
        "cargo",
        "rscript",
        "r",
        "julia",
        "osascript",
        "pwsh",
        "powershell",
        "cmd",
        "docker",
        "podman",
        "nix",
        "npx.cmd",
        "gem",
        "bundle",
        "irb",
        "erl",
        "elixir",
        "iex",
        "mix",
        "swift",
        "kotlin",
        "scala",
        "groovy",
        "tclsh",
        "wish",
        "awk",
        "gawk",
        "expect",
    ];
    let name = command
        .rsplit('/')
        .next()
        .unwrap_or(command)
        .to_ascii_lowercase();
    let stem = name.trim_end_matches(".exe");
    NAMES.contains(&stem)
        || ["python", "pypy", "perl", "ruby", "php", "node", "lua"]
            .iter()
            .any(|p| {
                stem.starts_with(p)
                    && stem[p.len()..]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.')
            })
}

/// One `--allow-command` entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The entry as given (shown in refusals).
    pub text: String,
    pub command: String,
    patterns: Vec<(String, GlobMatcher)>,
}

impl Entry {
    /// Parses one entry (see the module docs); refuses a launcher without patterns and a
    /// pattern that is not a glob.
    pub fn parse(text: &str) -> Result<Entry, String> {
        let w = words(text)?;
        let Some((command, args)) = w.split_first() else {
            return Err("an --allow-command entry needs a command".into());
        };
        if args.is_empty() && is_launcher(command) {
            return Err(format!(
                "`{command}` runs whatever its arguments say: give the arguments it may run with, e.g. --allow-command '{command} /opt/mcp/server/index.js'"
            ));
        }
        let patterns = args
            .iter()
            .map(|p| {
                GlobBuilder::new(p)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map(|g| (p.clone(), g.compile_matcher()))
                    .map_err(|e| format!("`{p}` is not a valid pattern: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Entry {
            text: text.to_string(),
            command: command.clone(),
            patterns,
        })
    }

    /// Whether `command args…` is what this entry admits.
    pub fn admits(&self, command: &str, args: &[String]) -> bool {
        self.command == command
            && self.patterns.len() == args.len()
            && self
                .patterns
                .iter()
                .zip(args)
                .all(|((p, g), a)| arg_matches(p, g, a))
    }
}

fn arg_matches(pattern: &str, glob: &GlobMatcher, arg: &str) -> bool {
    if pattern == arg {
        return true;
    }
    // A wildcard never stands for a `..` segment (`/opt/mcp/*/x` is not `/opt/mcp/../x`).
    if arg.split('/').any(|seg| seg == "..") {
        return false;
    }
    glob.is_match(arg)
}

/// Splits an entry into words like a shell line: whitespace separates, `'…'` and `"…"`
/// quote, `\` escapes the next character (outside single quotes).
fn words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = cur.take() {
                    out.push(w);
                }
            }
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("unclosed ' in `{s}`")),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => w.push(c),
                            None => return Err(format!("a trailing \\ in `{s}`")),
                        },
                        Some(c) => w.push(c),
                        None => return Err(format!("unclosed \" in `{s}`")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => cur.get_or_insert_with(String::new).push(c),
                None => return Err(format!("a trailing \\ in `{s}`")),
            },
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = cur {
        out.push(w);
    }
    Ok(out)
}

/// The whole policy: the command entries and the admitted environment variable names.
#[derive(Debug, Clone)]
pub struct AllowList {
    pub entries: Vec<Entry>,
    env: Vec<(String, GlobMatcher)>,
}

impl AllowList {
    /// Builds the policy from `--allow-command` entries and `--allow-env` names; the error
    /// names the entry at fault.
    pub fn parse<S: AsRef<str>>(commands: &[S], env: &[S]) -> Result<AllowList, String> {
        let entries = commands
            .iter()
            .map(|c| {
                Entry::parse(c.as_ref())
                    .map_err(|e| format!("--allow-command {:?}: {e}", c.as_ref()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let env = env
            .iter()
            .map(|n| {
                let n = n.as_ref();
                if n.is_empty() || n.contains('=') {
                    return Err(format!(
                        "--allow-env {n:?}: give a variable name (or a glob such as MCP_*)"
                    ));
                }
                GlobBuilder::new(n)
                    .build()
                    .map(|g| (n.to_string(), g.compile_matcher()))
                    .map_err(|e| format!("--allow-env {n:?}: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(AllowList { entries, env })
    }

    /// Whether `name` may be set by a server.
    pub fn env_allowed(&self, name: &str) -> bool {
        self.env.iter().any(|(n, g)| n == name || g.is_match(name))
    }

    /// Checks a stdio transport against the policy (other transports pass).
    pub fn check(&self, transport: &Transport) -> Result<(), Error> {
        let Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } = transport
        else {
            return Ok(());
        };
        let listed: Vec<&str> = self.entries.iter().map(|e| e.text.as_str()).collect();
        let refuse = |why: String| {
            Err(Error::forbidden(why)
                .with_reason("COMMAND_NOT_ALLOWED")
                .with_details(
                    json!({ "reason": "COMMAND_NOT_ALLOWED", "allowedCommands": listed }),
                ))
        };
        if !self.entries.iter().any(|e| e.command == *command) {
            return refuse(format!(
                "the command `{command}` is not on this service's allow-list (bare names match bare commands only, paths match exactly)"
            ));
        }
        if !self.entries.iter().any(|e| e.admits(command, args)) {
            return refuse(format!(
                "the command `{command}` is allowed only with the arguments its allow-list entries give, and these arguments match none of them"
            ));
        }
        if !command.contains('/') && env.contains_key("PATH") {
            return refuse(format!(
                "the command `{command}` is allowed by name, so the server may not set its own PATH"
            ));
        }
        if let Some(d) = cwd.as_deref().filter(|_| is_relative_path(command)) {
            return refuse(format!(
                "the command `{command}` is allowed as a relative path, so the server may not set its own cwd (`{d}`)"
            ));
        }
        if let Some(name) = env.keys().find(|n| !self.env_allowed(n)) {
            return Err(Error::forbidden(format!(
                "the environment variable `{name}` is not admitted by this service (an operator admits variables with `serve --allow-env NAME`)"
            ))
            .with_reason("ENV_NOT_ALLOWED")
            .with_details(json!({ "reason": "ENV_NOT_ALLOWED", "variable": name })));
        }
        Ok(())
    }
}

/// A command given as a relative path (`./srv.sh`, `bin/srv`): found from a working directory.
fn is_relative_path(command: &str) -> bool {
    command.contains('/') && !std::path::Path::new(command).is_absolute()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn stdio(command: &str, args: &[&str], env: &[&str]) -> Transport {
        Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|n| (n.to_string(), "v".to_string()))
                .collect::<BTreeMap<_, _>>(),
            cwd: None,
        }
    }

    fn reason(l: &AllowList, t: &Transport) -> Option<String> {
        l.check(t)
            .err()
            .and_then(|e| e.reason().map(str::to_string))
    }

    #[test]
    fn launchers_need_argument_patterns() {
        for c in [
            "node",
            "/usr/bin/node",
            "python3",
            "python3.12",
            "deno",
            "bun",
            "npx",
            "uvx",
            "sh",
            "bash",
            "env",
            "perl5.36",
        ] {
            assert!(AllowList::parse(&[c], &[]).is_err(), "{c}");
        }
        for c in [
            "mcp-server-time",
            "/opt/mcp/srv",
            "./srv.sh",
            "nodemon-like-not",
        ] {
            assert!(AllowList::parse(&[c], &[]).is_ok(), "{c}");
        }
        assert!(AllowList::parse(&["node /opt/mcp/*/index.js stdio"], &[]).is_ok());
    }

    #[test]
    fn arguments_must_match_the_patterns_one_for_one() {
        let l = AllowList::parse(&["node /opt/mcp/*/index.js stdio"], &[]).unwrap();
        assert_eq!(
            reason(
                &l,
                &stdio("node", &["/opt/mcp/time/index.js", "stdio"], &[])
            ),
            None
        );
        for args in [
            &["-e", "require('fs').writeFileSync('/tmp/x', '')"][..],
            &["--require", "/tmp/evil.js"],
            &["/opt/mcp/time/index.js"],
            &["/opt/mcp/time/index.js", "stdio", "--inspect"],
            &[
                "--require",
                "/tmp/evil.js",
                "/opt/mcp/time/index.js",
                "stdio",
            ],
            &["/opt/mcp/../../tmp/index.js", "stdio"],
            &["/opt/mcp/a/b/index.js", "stdio"],
            &["/opt/mcp/../index.js", "stdio"],
        ] {
            assert_eq!(
                reason(&l, &stdio("node", args, &[])).as_deref(),
                Some("COMMAND_NOT_ALLOWED"),
                "{args:?}"
            );
        }
        // Quoting in an entry.
        let l = AllowList::parse(&[r#"srv --name "a b" 'x*y'"#], &[]).unwrap();
        assert_eq!(
            reason(&l, &stdio("srv", &["--name", "a b", "x*y"], &[])),
            None
        );
        assert!(reason(&l, &stdio("srv", &["--name", "a", "b"], &[])).is_some());
    }

    #[test]
    fn environment_variables_are_admitted_by_name() {
        let l = AllowList::parse(&["srv"], &["API_KEY", "MCP_*"]).unwrap();
        assert_eq!(
            reason(&l, &stdio("srv", &[], &["API_KEY", "MCP_TOKEN"])),
            None
        );
        for n in [
            "OPENSSL_CONF",
            "LD_PRELOAD",
            "NODE_OPTIONS",
            "BASH_ENV",
            "api_key",
        ] {
            let e = l.check(&stdio("srv", &[], &[n])).unwrap_err();
            assert_eq!(e.reason(), Some("ENV_NOT_ALLOWED"), "{n}");
            assert_eq!(e.details.as_ref().unwrap()["variable"], n);
        }
        // A bare name never brings its own PATH, even if PATH is admitted.
        let l = AllowList::parse(&["srv"], &["PATH"]).unwrap();
        assert_eq!(
            reason(&l, &stdio("srv", &[], &["PATH"])).as_deref(),
            Some("COMMAND_NOT_ALLOWED")
        );
    }
}
