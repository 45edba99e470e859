//! Robot Framework suites as Markdown, line for line: each test of `*** Test Cases ***` is
//! a section, the keyword that asks the agent gives its prompt, a checking keyword names
//! the expected tool and its arguments or, negated (`Tool Should Not Be Called`), a tool
//! that must not be called, and `[Documentation]` and `[Tags]` are notes.
//! Settings, variables and keywords are set-up, not cases: their lines are blank, though
//! a step naming a suite variable (`${TOOL}`, `@{TAGS}`) reads its value.

use std::collections::HashMap;

use crate::service::authoring::lexicon;

/// The suite's variables as written in a step (`${TOOL}`, `@{TAGS}`) → their values.
type Variables = HashMap<String, String>;

/// Whether the document is a Robot Framework suite: it has a test or task table.
pub fn looks_like_robot(t: &str) -> bool {
    t.lines().any(|l| {
        let h = section(l);
        h.as_deref() == Some("test cases") || h.as_deref() == Some("tasks")
    })
}

/// `*** Test Cases ***` → `test cases`.
fn section(l: &str) -> Option<String> {
    let s = l.trim();
    (s.starts_with("***") || s.starts_with("* "))
        .then(|| s.trim_matches(['*', ' ']).to_ascii_lowercase())
}

/// Keywords that send the agent something: their last argument is what is said.
const SENDS: &[&str] = &[
    "ask",
    "send",
    "prompt",
    "say",
    "query",
    "chat",
    "message",
    "input",
    "run agent",
    "invoke",
];

/// The steps of `*** Test Cases ***`, each with the test it is in.
fn test_steps<'a>(
    t: &'a str,
    vars: &'a Variables,
) -> impl Iterator<Item = (usize, Vec<String>)> + 'a {
    let mut in_tests = false;
    let mut test = 0;
    t.lines().filter_map(move |l| {
        if let Some(h) = section(l) {
            in_tests = h == "test cases" || h == "tasks";
            return None;
        }
        if !in_tests || l.trim().is_empty() || l.trim_start().starts_with('#') {
            return None;
        }
        if !l.starts_with([' ', '\t']) {
            test += 1;
            return None;
        }
        Some((test, cells(l, vars)))
    })
}

/// The suite's own keyword that sends the agent what the user says, in any language
/// (`Korisnik Pita`, `Utilizatorul Întreabă`): the one whose last argument is free text of
/// three words or more in at least two tests, each time different.
fn asking_keyword(t: &str, vars: &Variables) -> Option<String> {
    let mut said: HashMap<String, Vec<(usize, String)>> = HashMap::new();
    for (test, c) in test_steps(t, vars) {
        let c: Vec<&String> = c.iter().filter(|c| !is_variable(c)).collect();
        if let [kw, .., last] = c[..]
            && !kw.starts_with('[')
            && last.split_whitespace().count() >= 3
            && !last.contains('=')
        {
            said.entry(kw.to_lowercase())
                .or_default()
                .push((test, last.clone()));
        }
    }
    said.into_iter()
        .filter(|(_, uses)| {
            let tests: std::collections::HashSet<usize> = uses.iter().map(|u| u.0).collect();
            let texts: std::collections::HashSet<&String> = uses.iter().map(|u| &u.1).collect();
            tests.len() >= 2 && texts.len() == uses.len()
        })
        .max_by_key(|(kw, uses)| (uses.len(), kw.clone()))
        .map(|(kw, _)| kw)
}

/// The suite as Markdown, line for line.
pub fn to_markdown(t: &str) -> String {
    let vars = variables(t);
    let asks = asking_keyword(t, &vars);
    let mut out = Vec::new();
    let mut in_tests = false;
    for l in t.lines() {
        if let Some(h) = section(l) {
            in_tests = h == "test cases" || h == "tasks";
            out.push(String::new());
            continue;
        }
        if !in_tests || l.trim().is_empty() || l.trim_start().starts_with('#') {
            out.push(String::new());
            continue;
        }
        if !l.starts_with([' ', '\t']) {
            // A test's name.
            out.push(format!("## {}", l.trim()));
            continue;
        }
        out.push(step(&cells(l, &vars), asks.as_deref()));
    }
    super::rejoin(t, &out)
}

/// The `*** Variables ***` table: `${NAME}  value`, `@{NAME}  a  b` (a list, also usable
/// as `${NAME}`), `&{NAME}  k=v`.
fn variables(t: &str) -> Variables {
    let mut out = Variables::new();
    let mut inside = false;
    for l in t.lines() {
        if let Some(h) = section(l) {
            inside = h == "variables";
            continue;
        }
        if !inside || l.starts_with([' ', '\t']) {
            continue;
        }
        let parts: Vec<&str> = l
            .split('\t')
            .flat_map(|p| p.split("  "))
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let Some((name, values)) = parts.split_first() else {
            continue;
        };
        let name = name.trim_end_matches('=').trim_end();
        let Some(bare) = name
            .get(2..name.len().saturating_sub(1))
            .filter(|_| name.len() > 3 && name.ends_with('}'))
        else {
            continue;
        };
        let values: Vec<String> = values.iter().map(|v| value(v)).collect();
        match &name[..2] {
            "${" => {
                out.insert(name.to_string(), values.join(" "));
            }
            "@{" | "&{" => {
                let list = format!("[{}]", values.join(", "));
                out.insert(name.to_string(), list.clone());
                out.insert(format!("${{{bare}}}"), list);
            }
            _ => {}
        }
    }
    out
}

/// A step's cells: separated by two or more spaces or a tab, `...` continuing the line
/// above, the suite's variables replaced by their values.
fn cells(l: &str, vars: &Variables) -> Vec<String> {
    l.split('\t')
        .flat_map(|p| p.split("  "))
        .map(str::trim)
        .filter(|c| !c.is_empty() && *c != "...")
        .map(|c| {
            vars.iter()
                .filter(|(k, _)| c.contains(k.as_str()))
                .fold(c.to_string(), |c, (k, v)| c.replace(k.as_str(), v))
        })
        .map(|c| value(&c))
        .collect()
}

fn is_variable(c: &str) -> bool {
    let c = c.trim_end_matches('=').trim_end();
    (c.starts_with("${") || c.starts_with("@{") || c.starts_with("&{")) && c.ends_with('}')
}

/// `${True}` → `true`, `${42}` → `42`: Robot's literal variables as the values they are.
fn value(c: &str) -> String {
    // (`pageSize=${10}`: a number written as a variable.)
    let numbered = |inner: &str| !inner.is_empty() && inner.parse::<f64>().is_ok();
    let mut out = match c.find("${") {
        Some(at) if c.ends_with('}') && numbered(&c[at + 2..c.len() - 1]) => {
            format!("{}{}", &c[..at], &c[at + 2..c.len() - 1])
        }
        _ => c.to_string(),
    };
    for (from, to) in [
        ("${True}", "true"),
        ("${False}", "false"),
        ("${None}", "null"),
        ("${true}", "true"),
        ("${false}", "false"),
    ] {
        out = out.replace(from, to);
    }
    out
}

/// One step as a Markdown line; `asks` is the suite's own asking keyword, if any.
fn step(c: &[String], asks: Option<&str>) -> String {
    // Variables assigned to (`${calls}=`) and passed along (`${calls}`) are left out.
    let unknown = c.iter().any(|c| is_variable(c));
    let c: Vec<&String> = c.iter().filter(|c| !is_variable(c)).collect();
    let Some(first) = c.first().copied() else {
        return String::new();
    };
    let rest = &c[1..];
    match first.to_ascii_lowercase().as_str() {
        "[documentation]" => return format!("Notes: {}", join(rest, " ")),
        // (Robot's own tags that keep a test from running.)
        "[tags]"
            if rest.iter().any(|t| {
                matches!(
                    t.to_ascii_lowercase().as_str(),
                    "robot:skip" | "robot:exclude"
                )
            }) =>
        {
            return "Status: skipped".into();
        }
        "[tags]" => return format!("Tags: {}", join(rest, ", ")),
        s if s.starts_with('[') => return String::new(),
        _ => {}
    }
    // A conversation's turns (`user: …`) stand as they are.
    if rest.is_empty() && first.contains(':') {
        return first.clone();
    }
    let kw = first.to_ascii_lowercase();
    if (SENDS.iter().any(|w| kw.split_whitespace().any(|k| k == *w))
        || asks == Some(first.to_lowercase().as_str()))
        && let Some(said) = rest.last()
        && said.contains(' ')
    {
        // (Quoted, unless it quotes something itself.)
        return if said.contains('"') {
            format!("Prompt: {said}")
        } else {
            format!("Prompt: \"{said}\"")
        };
    }
    // A check on the reply (`Response Should Contain`, `Réponse Doit Mentionner`): what
    // it names is said, not called.
    const REPLY: &[&str] = &[
        "response",
        "reply",
        "answer",
        "output",
        "reponse",
        "antwort",
        "respuesta",
        "risposta",
        "resposta",
        "antwoord",
        "svar",
        "vastaus",
    ];
    if kw
        .split_whitespace()
        .any(|w| REPLY.contains(&lexicon::fold(w).as_str()))
        && !rest.is_empty()
    {
        return format!("Expected: the reply mentions \"{}\"", join(rest, " "));
    }
    // A checking keyword: what it names is expected, or forbidden when it is negated
    // or forbids (`Tool Should Not Be Called`, `Zabrani Alat`); negated with nothing
    // named, no tool at all.
    // (`No Tool Should Be Called`, `Aucun Outil Appelé`: a negating determiner too.)
    let negated = kw.split_whitespace().any(|w| {
        let w = lexicon::fold(w);
        lexicon::listed(lexicon::NEGATION, &w)
            || lexicon::listed(lexicon::NO_DETERMINER, &w)
            || lexicon::label_role(&w) == Some(lexicon::LabelRole::Forbidden)
            || w.ends_with("n't")
    });
    match (negated, rest.split_first()) {
        // (What a variable from elsewhere names is not known: not no tool at all.)
        (true, None) if unknown => String::new(),
        (true, None) => format!("Expected: {first}"),
        (true, Some(_)) => format!("Must not call: {}", join(rest, ", ")),
        (false, Some((tool, []))) => format!("Expected tool: {tool}"),
        (false, Some((tool, args))) => format!("Expected tool: {tool} with {}", join(args, ", ")),
        (false, None) => format!("- {first}"),
    }
}

fn join(cells: &[&String], sep: &str) -> String {
    cells
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tests_become_sections_and_the_asking_keyword_the_prompt() {
        let robot = "*** Settings ***\nLibrary    Agent\n\n*** Test Cases ***\nSum Of Two\n    [Tags]    smoke\n    ${calls}=    Ask Agent    What's 17 plus 25?\n    Tool Should Be Called    ${calls}    get-sum    a=17    progress=${False}\n    @{turns}=    Create List\n    ...    user: Hello there\n\n*** Keywords ***\nAsk Agent\n    Log    x\n";
        assert!(super::looks_like_robot(robot));
        let md = super::to_markdown(robot);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), robot.lines().count());
        assert_eq!(lines[1], "");
        assert_eq!(lines[4], "## Sum Of Two");
        assert_eq!(lines[5], "Tags: smoke");
        assert_eq!(lines[6], "Prompt: \"What's 17 plus 25?\"");
        assert_eq!(lines[7], "Expected tool: get-sum with a=17, progress=false");
        assert_eq!(lines[9], "user: Hello there");
        assert_eq!(lines[13], "");
    }

    #[test]
    fn a_suites_own_asking_and_forbidding_keywords_in_any_language() {
        // Slovak keywords the suite defines for itself; Robot's skip tag.
        let robot = "*** Test Cases ***\nSúčet\n    Používateľ Sa Pýta    Koľko je 4 plus 5, prosím?\n    Over Nástroj    get-sum    a=4    b=5\n\nOzvena\n    Používateľ Sa Pýta    Zopakuj \"ahoj svet\" presne tak\n    Over Nástroj    echo\n    Zakázaný Nástroj    legacy-echo\n\nPád\n    [Tags]    robot:skip\n    Používateľ Sa Pýta    Zhoď server hneď teraz\n    Over Nástroj    crash\n";
        let md = super::to_markdown(robot);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[2], "Prompt: \"Koľko je 4 plus 5, prosím?\"");
        assert_eq!(lines[3], "Expected tool: get-sum with a=4, b=5");
        assert_eq!(lines[6], "Prompt: Zopakuj \"ahoj svet\" presne tak");
        assert_eq!(lines[8], "Must not call: legacy-echo");
        assert_eq!(lines[11], "Status: skipped");
    }

    #[test]
    fn a_step_naming_a_suite_variable_reads_its_value() {
        let robot = "*** Variables ***\n${TOOL}        search-items\n@{TAGS}    a    b\n\n*** Test Cases ***\nFind\n    Send Prompt    Find running shoes please\n    Tool Should Be Called    ${TOOL}    query=shoes    tags=@{TAGS}\n    Tool Should Not Be Called    ${UNKNOWN}\n";
        let md = super::to_markdown(robot);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[1], "");
        assert_eq!(
            lines[7],
            "Expected tool: search-items with query=shoes, tags=[a, b]"
        );
        assert_eq!(lines[8], "");
    }
}
