//! Callouts (Obsidian's and GitHub's `> [!note] Title`, a box with a title over quoted
//! lines), line for line: a callout titled as a template (`> [!example]- Template`) or as
//! set aside (`> [!failure] Removed`) holds no case, and its lines are blank; one titled
//! with a field's label (`> [!tip]
//! Expected`) is that field, its quoted lines the value.

use std::borrow::Cow;

use crate::service::authoring::lexicon;
use crate::service::authoring::lines::has;

/// The callout's title, when the line opens one: `> [!tip]- Expected` → `Expected`.
fn title(line: &str) -> Option<&str> {
    let rest = line
        .trim_start()
        .strip_prefix('>')?
        .trim_start()
        .strip_prefix("[!")?;
    let (kind, title) = rest.split_once(']')?;
    kind.chars()
        .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        .then(|| title.trim_start_matches(['+', '-']).trim())
}

/// The text with its callouts read as fields or set aside; borrowed when it has none.
pub fn as_fields(t: &str) -> Cow<'_, str> {
    if !has(t, "[!") {
        return Cow::Borrowed(t);
    }
    let lines: Vec<&str> = t.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut changed = false;
    let mut k = 0;
    while k < lines.len() {
        let Some(head) = title(lines[k]) else {
            out.push(lines[k].to_string());
            k += 1;
            continue;
        };
        // The callout's body: the quoted lines under its title.
        let end = (k + 1..lines.len())
            .find(|&j| !lines[j].trim_start().starts_with('>'))
            .unwrap_or(lines.len());
        let body = |j: usize| lines[j].trim_start().trim_start_matches('>').trim_start();
        // (`> [!failure] Removed 15.11.`: set aside as a heading would be.)
        let set_aside = head
            .split_whitespace()
            .next()
            .is_some_and(|w| lexicon::is_dropped_status(w.trim_end_matches([':', '.'])));
        if set_aside || lexicon::heading_excludes(head) {
            out.extend((k..end).map(|_| String::new()));
            changed = true;
        } else if lexicon::label_role(head).is_some() {
            out.push(format!("{}:", head.trim_end_matches([':', '：'])));
            out.extend((k + 1..end).map(|j| format!("  {}", body(j))));
            changed = true;
        } else {
            out.extend((k..end).map(|j| lines[j].to_string()));
        }
        k = end;
    }
    if changed {
        Cow::Owned(super::rejoin(t, &out))
    } else {
        Cow::Borrowed(t)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_template_callout_is_blank_and_a_labelled_one_is_its_field() {
        let t = "> [!example]- Template (copy me)\n> ### Tnn\n> prompt:: \"…\"\n\n### T1\nprompt:: \"Hi\"\n> [!tip] Expected\n> No tool call at all.\n\n> [!note] About\n> Kept.\n";
        let md = super::as_fields(t);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), t.lines().count());
        assert_eq!(&lines[..3], ["", "", ""]);
        assert_eq!(lines[6], "Expected:");
        assert_eq!(lines[7], "  No tool call at all.");
        assert_eq!(lines[9], "> [!note] About");
    }
}
