//! What "duplicate" means at commit.
//!
//! A draft duplicates a case of the suite when both ask the same thing: the same user
//! prompts in the same order, compared after trimming, collapsing whitespace and ignoring
//! letter case (so a re-import of the same plan, or the same prompt pasted twice, is a
//! duplicate, while a different follow-up turn is not). A case without prompts (a
//! render-check) is identified by its tool name and arguments. Titles, expectations and
//! provenance do not count: two cases asking the same thing with different expectations
//! would contradict each other, which is what a person should review. Cases written
//! earlier in the same commit count as existing.

use crate::spec::case::{EvalCase, StepKind};

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The identity a case is compared by.
pub fn fingerprint(c: &EvalCase) -> String {
    let prompts: Vec<String> = c
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::Prompt)
        .filter_map(|s| s.prompt.as_deref())
        .map(norm)
        .collect();
    if !prompts.is_empty() {
        return format!("prompts\u{1f}{}", prompts.join("\u{1f}"));
    }
    let calls: Vec<String> = c
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::ToolCall)
        .map(|s| {
            format!(
                "{}({})",
                s.tool_name.as_deref().unwrap_or_default(),
                serde_json::to_string(&s.arguments).unwrap_or_default()
            )
        })
        .collect();
    format!("calls\u{1f}{}", calls.join("\u{1f}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::case::EvalTestStep;

    #[test]
    fn same_prompts_modulo_case_and_spacing() {
        let a = EvalCase::new(
            "a",
            "A",
            vec![EvalTestStep::new_prompt("p", "What is  2 + 3?")],
        );
        let b = EvalCase::new(
            "b",
            "B",
            vec![EvalTestStep::new_prompt("q", "what is 2 + 3?\n")],
        );
        let c = EvalCase::new(
            "c",
            "C",
            vec![EvalTestStep::new_prompt("q", "what is 2 + 4?")],
        );
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
    }
}
