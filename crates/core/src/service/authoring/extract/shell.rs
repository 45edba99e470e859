//! Shell scripts that run one command per case (`evalctl case --prompt "…" --expect echo
//! --never crash \`). Read as text, line for line, with each comment written `// …`: a
//! `#` comment is no Markdown heading and its words are no field label, and a comment that
//! says a command was dropped stays in that command's paragraph.

use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::lines::LineIndex;

/// Whether the document is a shell script: it opens with a shell's `#!` line.
pub fn looks_like_shell(head: &str) -> bool {
    head.lines().next().is_some_and(|l| {
        l.starts_with("#!")
            && ["sh", "bash", "zsh", "dash", "ksh"]
                .iter()
                .any(|s| l.split(['/', ' ']).any(|w| w == *s))
    })
}

/// The cases of a script: its commands read as text, each span starting at the command
/// (a comment above it says something about it, but is not part of it).
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let mut drafts = super::text::extract(&LineIndex::new(&to_text(ix.text())), cat);
    for d in &mut drafts {
        while d.start_line < d.end_line && ix.line(d.start_line).trim_start().starts_with('#') {
            d.start_line += 1;
        }
    }
    drafts
}

/// The script with each comment's `#` written `//`.
pub fn to_text(t: &str) -> String {
    let lines: Vec<String> = t
        .lines()
        .map(|l| {
            let body = l.trim_start();
            match body.strip_prefix('#') {
                Some(rest) => format!(
                    "{}// {}",
                    &l[..l.len() - body.len()],
                    rest.trim_start_matches('#').trim_start()
                ),
                None => l.to_string(),
            }
        })
        .collect();
    super::rejoin(t, &lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_become_text_line_for_line() {
        let t = "#!/usr/bin/env bash\n# Smoke test\nrun --prompt \"hi\"\n";
        assert!(looks_like_shell(t));
        assert_eq!(to_text(t).lines().count(), 3);
        assert!(
            !to_text(t)
                .lines()
                .nth(1)
                .unwrap()
                .trim_start()
                .starts_with('#')
        );
        assert!(!looks_like_shell("# Title\n"));
    }
}
