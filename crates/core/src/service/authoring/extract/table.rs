//! CSV and TSV spreadsheet exports: one case per record, header synonyms, and promptfoo's
//! columns (`__expected[N]` assertions, `__description`, `__metadata:*`, vars otherwise).
//!
//! Records are read with the `csv` crate, so quoted cells with embedded newlines and
//! doubled quotes are one cell; each record's byte position gives its exact line span.

use serde_json::Value;

use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::{Draft, ExpectedCall, Needle};
use crate::service::authoring::fields::{Role, role_of};
use crate::service::authoring::lexicon::{self, LabelRole};
use crate::service::authoring::lines::LineIndex;
use crate::service::authoring::reading;
use crate::service::authoring::unit::{
    Segment, UnitInfo, cell_segments, leading_role, read_unit, said_in_steps, segments_of,
};

/// Splits one line at `d` outside double quotes (for sniffing only).
fn split_line(line: &str, d: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q = false;
    for c in line.chars() {
        if c == '"' {
            q = !q;
        } else if c == d && !q {
            out.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|c| c.trim().trim_matches('"').trim().to_string())
        .collect()
}

/// Whether the cells are a header: short labels, one of them a prompt, steps or tool
/// column (or promptfoo's `__` columns).
fn is_header(cells: &[String]) -> bool {
    let filled: Vec<&String> = cells.iter().filter(|c| !c.is_empty()).collect();
    let known = filled
        .iter()
        .filter(|h| h.starts_with("__") || role_of(h) != Role::Other)
        .count();
    filled.len() >= 2
        && known >= 2
        && labels_only(&filled)
        && (filled.iter().any(|h| {
            h.starts_with("__")
                || matches!(
                    role_of(h),
                    Role::Prompt | Role::Prompts | Role::Turn(_) | Role::Tool | Role::Steps
                )
        })
            // (A tracker's export, `Summary,Issue key,…,Description,Comment`: its issues'
            // descriptions hold the cases.)
            || known >= 5 && filled.iter().filter(|h| role_of(h) == Role::Title).count() >= 2)
}

/// Whether each cell reads as a column's label: a few words, no sentence.
fn labels_only(filled: &[&String]) -> bool {
    filled.iter().all(|h| {
        // A label is a few words; a sentence cut at its commas is not a header.
        h.chars().count() <= 60
                && h.split_whitespace()
                    .filter(|w| w.chars().any(char::is_alphanumeric))
                    .count()
                    <= 7
                && !h.contains(['\n', '!', '！'])
                // (A form's columns are its questions: `¿Qué herramienta debería usar?`.)
                && (!h.contains(['?', '？']) || role_of(h) != Role::Other || filled.len() >= 4)
                && (!h.ends_with(['.', '。', ':', '：'])
                    // (`No.`, `Nr.`: an abbreviation, no sentence.)
                    || h.ends_with('.') && h.chars().count() <= 4 && !h.contains(' '))
                // (`- «say hi» → echo, message = hi`: a list item cut at its comma.)
                && !h.contains(['«', '»', '“', '”', '→', '='])
                && !h.starts_with("- ")
                && !h.contains(": ")
                && !h.contains(". ")
                // (A lower-case run of words is a sentence's piece: `nario on indique la
                // requête de l'utilisateur, l'outil attendu et, …`.)
                && (h.split_whitespace().count() < 4 || !h.starts_with(char::is_lowercase))
    })
}

/// Whether the text is a sheet by its shape alone, whatever language its labels are in
/// (an Asana or monday.com export): a first row of four labels or more, and records of
/// that many cells (quoted cells over several lines included) for most of the rest.
fn shaped_like_a_sheet(text: &str, d: u8) -> bool {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(d)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let mut records = rdr.records().map_while(Result::ok);
    // (The header may stand under a title row and blank rows, as a board's export puts
    // it.)
    let Some(cells) = records.by_ref().take(10).find_map(|r| {
        let cells: Vec<String> = r.iter().map(|c| c.trim().to_string()).collect();
        let filled: Vec<&String> = cells.iter().filter(|c| !c.is_empty()).collect();
        (filled.len() >= 4 && filled.len() * 4 >= cells.len() * 3 && labels_only(&filled))
            .then_some(cells)
    }) else {
        return false;
    };
    let (mut rows, mut fitting) = (0, 0);
    for r in records.take(200) {
        rows += 1;
        fitting += usize::from(r.len() == cells.len());
    }
    rows >= 2 && fitting * 10 >= rows * 8
}

/// The delimiter of a spreadsheet export: a header row (possibly below a title row or
/// blank rows) of delimiter-separated labels, one of them a prompt, steps or tool column.
pub fn sniff_delimiter(text: &str) -> Option<u8> {
    for line in text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(8)
    {
        let best = ['\t', ',', ';']
            .into_iter()
            .map(|d| (d, split_line(line, d)))
            .filter(|(_, c)| c.len() >= 2)
            .max_by_key(|(_, c)| c.len());
        if let Some((d, cells)) = best
            && is_header(&cells)
        {
            return Some(d as u8);
        }
        // A Markdown table or heading before any header row: the document is text. (A
        // header row's `#` column, `#<TAB>Name`, was taken above.)
        if line.trim_start().starts_with('|') || line.starts_with("# ") || line.starts_with("##") {
            return None;
        }
    }
    // No row names a prompt or a tool column in a language the lexicon has: a sheet by
    // its shape, its columns read by their cells.
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    [b'\t', b',', b';']
        .into_iter()
        .filter(|&d| first.bytes().filter(|&b| b == d).count() >= 3)
        .find(|&d| shaped_like_a_sheet(text, d))
}

/// The records of a sheet turned on its side, when it is one: a run of three rows or more
/// whose first cells are labels naming a prompt and a tool (or what is expected), each
/// with two values or more beside it, and no row of the sheet a header.
fn on_its_side(records: &[(usize, csv::StringRecord)]) -> Option<(usize, usize)> {
    let label = |r: &csv::StringRecord| {
        let first = r.get(0)?.trim();
        let values = r.iter().skip(1).filter(|c| !c.trim().is_empty()).count();
        (!first.is_empty() && values >= 2 && labels_only(&[&first.to_string()]))
            .then(|| role_of(first))
    };
    if records
        .iter()
        .any(|(_, r)| is_header(&r.iter().map(|c| c.trim().to_string()).collect::<Vec<_>>()))
    {
        return None;
    }
    let a = records.iter().position(|(_, r)| label(r).is_some())?;
    let z = a + records[a..]
        .iter()
        .take_while(|(_, r)| label(r).is_some())
        .count()
        - 1;
    let roles: Vec<Role> = records[a..=z]
        .iter()
        .filter_map(|(_, r)| label(r))
        .collect();
    (z >= a + 2
        && roles
            .iter()
            .any(|r| matches!(r, Role::Prompt | Role::Prompts | Role::Steps))
        && roles
            .iter()
            .any(|r| matches!(r, Role::Tool | Role::Expected | Role::Negative)))
    .then_some((a, z))
}

/// A sheet whose merged cells came out blank, as its own note says ("a blank cell means
/// the same as the one above"): a blank tool or forbidden-tool cell repeats the one above.
fn fill_down(text: &str, header: &[String], groups: &mut [(usize, usize, Vec<Vec<String>>)]) {
    if !lexicon::has_any(&lexicon::fold(text), lexicon::SAME_AS_ABOVE) {
        return;
    }
    let columns: Vec<usize> = (0..header.len())
        .filter(|&c| {
            matches!(
                lexicon::label_role(&header[c]),
                Some(LabelRole::Tool | LabelRole::Forbidden)
            )
        })
        .collect();
    let mut above: Vec<Option<String>> = vec![None; header.len()];
    for (_, _, rows) in groups.iter_mut() {
        let row = &mut rows[0];
        for &c in &columns {
            match row.get(c) {
                Some(v) if !v.trim().is_empty() => above[c] = Some(v.clone()),
                _ => {
                    if let Some(v) = &above[c] {
                        if row.len() <= c {
                            row.resize(c + 1, String::new());
                        }
                        row[c] = v.clone();
                    }
                }
            }
        }
    }
}

/// Rows a column files under the row just above them by its title (an Asana or Jira
/// export's `Parent task`, monday.com's subitems): parts of that row's case, its turns.
fn merge_subtasks(header: &[String], groups: &mut Vec<(usize, usize, Vec<Vec<String>>)>) {
    let cell = |g: &(usize, usize, Vec<Vec<String>>), c: usize| {
        g.2[0]
            .get(c)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    // The column whose every value is another row's title (or key), in whatever column
    // that is.
    let mut pairs = (0..header.len()).flat_map(|p| {
        (0..header.len())
            .filter(move |&t| t != p)
            .map(move |t| (p, t))
    });
    let Some((parent, title)) = pairs.find(|&(p, t)| {
        let mut named = groups
            .iter()
            .enumerate()
            .map(|(i, g)| (i, cell(g, p)))
            .filter(|(_, v)| !v.is_empty())
            .peekable();
        named.peek().is_some()
            && named.all(|(i, v)| {
                // (A name, not a key: `AIQA-100` in a `Precondition` column refers to
                // another test, whose part it is not.)
                v.chars().any(char::is_alphabetic)
                    && v.contains(' ')
                    && groups
                        .iter()
                        .enumerate()
                        .any(|(j, o)| j != i && cell(o, t) == v)
            })
    }) else {
        return;
    };
    let mut merged: Vec<(usize, usize, Vec<Vec<String>>)> = Vec::new();
    // (The row a run of subtasks belongs to: the last one that is none.)
    let mut owner: Option<String> = None;
    for g in groups.drain(..) {
        let of = cell(&g, parent);
        // (A subtask leaves out fields its row fills: a section, tags, a project.)
        let filled = |g: &(usize, usize, Vec<Vec<String>>)| {
            g.2[0].iter().filter(|c| !c.trim().is_empty()).count()
        };
        match merged.last_mut() {
            Some(last)
                if !of.is_empty()
                    && owner.as_deref() == Some(of.as_str())
                    && filled(&g) < filled(last) =>
            {
                last.1 = g.1;
                last.2.extend(g.2);
            }
            _ => {
                owner = of.is_empty().then(|| cell(&g, title));
                merged.push(g);
            }
        }
    }
    *groups = merged;
}

/// Extracts one case per record (a record continued on rows with an empty first cell,
/// as step-by-step exports write it, is one case).
pub fn extract(ix: &LineIndex, delimiter: u8, cat: &Catalog) -> Vec<Draft> {
    let text = ix.text();
    let body_start = text.len() - text.trim_start_matches('\u{feff}').len();
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(&text.as_bytes()[body_start..]);
    let mut records: Vec<(usize, csv::StringRecord)> = Vec::new();
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(true) => {
                // The position may point at the previous record's line terminator.
                let mut pos = rec.position().map(|p| p.byte() as usize).unwrap_or(0) + body_start;
                while pos < text.len() && matches!(text.as_bytes()[pos], b'\r' | b'\n') {
                    pos += 1;
                }
                records.push((pos, rec.clone()));
            }
            Ok(false) => break,
            // A malformed record ends the readable part; what came before still counts.
            Err(_) => break,
        }
    }
    // A sheet turned on its side (the fields down the first column, a case a column): read
    // as the rows its columns are, each spanning the fields' lines.
    let mut side_span: Option<(usize, usize)> = None;
    if let Some((a, z)) = on_its_side(&records) {
        let block_end = records.get(z + 1).map_or(text.len(), |(p, _)| *p);
        let pos = records[a].0;
        let width = records[a..=z]
            .iter()
            .map(|(_, r)| r.len())
            .max()
            .unwrap_or(0);
        let column = |j: usize| {
            csv::StringRecord::from(
                records[a..=z]
                    .iter()
                    .map(|(_, r)| r.get(j).unwrap_or_default())
                    .collect::<Vec<_>>(),
            )
        };
        records = (0..width).map(|j| (pos, column(j))).collect();
        side_span = Some((pos, block_end));
    }
    let cells_of =
        |r: &csv::StringRecord| r.iter().map(|c| c.trim().to_string()).collect::<Vec<_>>();
    let filled = |r: &csv::StringRecord| r.iter().filter(|c| !c.trim().is_empty()).count();
    // (Else, in a sheet known by its shape, its first row of labels.)
    let Some(mut h) = records
        .iter()
        .position(|(_, r)| is_header(&cells_of(r)))
        .or_else(|| {
            records.iter().position(|(_, r)| {
                let cells = cells_of(r);
                let filled: Vec<&String> = cells.iter().filter(|c| !c.is_empty()).collect();
                filled.len() >= 4 && labels_only(&filled)
            })
        })
    else {
        return Vec::new();
    };
    // A merged header's upper row (`Input | Expected | Admin` over the columns it
    // groups): the row of more labels under it is the header.
    while records
        .get(h + 1)
        .is_some_and(|(_, r)| filled(r) > filled(&records[h].1) && is_header(&cells_of(r)))
    {
        h += 1;
    }
    let rows = &records[h + 1..];
    let mut header: Vec<String> = records[h].1.iter().map(|c| c.trim().to_string()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, r)| r.iter().map(str::to_string).collect())
        .collect();
    super::keys::name_columns(&mut header, &cells, cat);
    let promptfoo = header.iter().any(|h| h.starts_with("__"));
    // (Or, whatever its label says, a first column of distinct keys, `AIQA-101`, that some
    // rows leave blank: a step-by-step export's continuation rows.)
    let keys: Vec<&str> = rows
        .iter()
        .filter_map(|(_, r)| r.get(0).map(str::trim))
        .filter(|c| !c.is_empty())
        .collect();
    let keyed_column = keys.len() >= 2
        && keys.len() < rows.len()
        && keys
            .iter()
            .all(|k| k.len() <= 24 && !k.contains(' ') && k.chars().any(|c| c.is_ascii_digit()))
        && keys.iter().collect::<std::collections::HashSet<_>>().len() == keys.len();
    let first_is_key = keyed_column
        || header
            .first()
            .is_some_and(|h| matches!(role_of(h), Role::Id | Role::Title));
    let shape = if promptfoo {
        "promptfoo CSV row"
    } else if delimiter == b'\t' {
        "TSV row"
    } else {
        "CSV row"
    };
    // Group continuation rows with the record they continue.
    // A blank row ends a record: what follows it is never its continuation.
    let mut groups: Vec<(usize, usize, Vec<Vec<String>>)> = Vec::new();
    let mut after_blank = false;
    let mut dropped_group = false;
    let mut prev = rows.first().map_or(0, |(p, _)| *p);
    for (k, (pos, r)) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(str::to_string).collect();
        // The reader skips empty lines, so look for one between the records too.
        if text[prev.min(*pos)..*pos]
            .replace('\r', "")
            .contains("\n\n")
        {
            after_blank = true;
        }
        prev = *pos;
        if cells.iter().all(|c| c.trim().is_empty()) {
            after_blank = true;
            continue;
        }
        // A section row (`,LECTURE,,,,`): one short cell, shouted, in a wide sheet. It ends
        // the record above and is no case.
        let filled: Vec<&String> = cells.iter().filter(|c| !c.trim().is_empty()).collect();
        // A note row (`NOTA: …` in the first cell alone, a sentence or more): no case.
        // (In a script without spaces, a sentence's length; and only where the first
        // column holds no prompt.)
        let sentence = |c: &str| {
            c.split_whitespace().count() >= 6
                || c.chars().filter(|ch| lexicon::is_cjk(*ch)).count() >= 12
                    && !header.first().is_some_and(|h| {
                        matches!(role_of(h), Role::Prompt | Role::Prompts | Role::Steps)
                    })
        };
        if header.len() >= 3
            && let [only] = filled[..]
            && std::ptr::eq(only, &cells[0])
            && sentence(only)
        {
            after_blank = true;
            continue;
        }
        if header.len() >= 3
            && let [only] = filled[..]
            && only.split_whitespace().count() <= 3
            && only.chars().any(char::is_alphabetic)
            && (!only.chars().any(char::is_lowercase)
                // (A board's group, `Ready` or `Dropped`, over its rows: the rows of a
                // dropped one are set aside.)
                || std::ptr::eq(only, &cells[0])
                    && !only.contains(['?', '？'])
                    && !matches!(
                        role_of(&header[0]),
                        Role::Prompt | Role::Prompts | Role::Steps | Role::Tool
                    ))
        {
            dropped_group = lexicon::is_dropped_status(only);
            after_blank = true;
            continue;
        }
        // The header again (each group of a board repeats it), or a sub-table's own
        // (`Subitems,Name,Owner,…`): no row of cases, and no end of the record above.
        let labels: Vec<&String> = filled
            .iter()
            .copied()
            .filter(|c| header.contains(c))
            .collect();
        if labels.len() >= 2 && labels.len() * 2 >= filled.len() {
            continue;
        }
        if dropped_group {
            continue;
        }
        let end = rows.get(k + 1).map(|(p, _)| *p).unwrap_or(text.len());
        let continues = first_is_key
            && !std::mem::take(&mut after_blank)
            && cells.first().is_some_and(|c| c.trim().is_empty())
            && !groups.is_empty();
        if continues {
            let g = groups.last_mut().unwrap();
            g.1 = end;
            g.2.push(cells);
        } else {
            groups.push((*pos, end, vec![cells]));
        }
    }
    if let Some((start, end)) = side_span {
        for g in &mut groups {
            (g.0, g.1) = (start, end);
        }
    }
    fill_down(text, &header, &mut groups);
    merge_subtasks(&header, &mut groups);
    // A column of no known role whose values are what each case does (`削除`, delete, among
    // `参照`, `登録`) is no status, though one of its words is also a dropped status's.
    let actions: Vec<bool> = (0..header.len())
        .map(|c| {
            let values: Vec<&str> = groups
                .iter()
                .filter_map(|(_, _, rows)| rows.first()?.get(c).map(|v| v.trim()))
                .filter(|v| !v.is_empty())
                .collect();
            values.iter().any(|v| {
                lexicon::is_dropped_status(v)
                    && !lexicon::concepts::english_words(&lexicon::fold(v)).is_empty()
            }) && values
                .iter()
                .filter(|v| lexicon::is_dropped_status(v) || lexicon::is_todo_marker(v))
                .count()
                == 1
        })
        .collect();
    let mut out = Vec::new();
    for (pos, end, rows) in groups {
        let (start_line, end_line) = ix.span_of(pos, end);
        let mut segs: Vec<Segment> = Vec::new();
        let mut key = None;
        let mut title = None;
        let mut asserts = Vec::new();
        for (c, h) in header.iter().enumerate() {
            let mut cells: Vec<&str> = rows
                .iter()
                .filter_map(|r| r.get(c))
                .map(|x| x.trim())
                .filter(|x| !x.is_empty())
                .collect();
            // (A prompt column over a record's steps, `The user writes: “…”` over `Check
            // the tool called`: the steps that quote what the user says are its turns.)
            let quotes_said = |x: &&str| {
                reading::quotes(x)
                    .iter()
                    .any(|&(a, b)| reading::utterance_like(&x[a..b]))
            };
            if cells.len() > 1
                && matches!(role_of(h), Role::Prompt | Role::Prompts)
                && cells.iter().any(quotes_said)
            {
                cells.retain(quotes_said);
            }
            let v = cells.join("\n");
            if let Some(rest) = h.strip_prefix("__expected") {
                if rest.chars().all(|c| c.is_ascii_digit()) && !v.is_empty() {
                    asserts.push((h.clone(), v));
                }
                continue;
            }
            if h == "__prefix" || h == "__suffix" {
                continue;
            }
            let label = h
                .strip_prefix("__metadata:")
                .or_else(|| h.strip_prefix("__"))
                .unwrap_or(h);
            let mut seg = Segment::labelled(label, v.clone());
            if seg.role.is_none() && cat.assigns_params(&v) {
                seg = Segment::labelled("arguments", v.clone());
            }
            if h == "__description" {
                if title.is_none() && !v.is_empty() {
                    title = Some(v.clone());
                }
                seg.role = Some(LabelRole::Notes);
            }
            match seg.role {
                Some(LabelRole::Id) if key.is_none() && !v.is_empty() => key = Some(v.clone()),
                Some(LabelRole::Title) if title.is_none() && !v.is_empty() => {
                    title = Some(v.lines().next().unwrap_or_default().to_string())
                }
                _ => {}
            }
            if h.starts_with("__metadata:") && seg.role.is_none() {
                continue;
            }
            // Steps kept as markup (an Azure DevOps export): the actions are the steps,
            // their results what is expected.
            if seg.role == Some(LabelRole::Steps)
                && let Some(pairs) = super::markup::step_pairs(&v)
            {
                let (mut actions, expected): (Vec<String>, Vec<String>) = pairs.into_iter().unzip();
                let join = |v: Vec<String>| {
                    v.into_iter()
                        .filter(|t| !t.is_empty())
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                // (No step says what the tester types, but the first expects a call or
                // none: its action is the message sent, `Fråga: …` under its own label.)
                if said_in_steps(&actions.join("\n")).is_empty()
                    && !actions[0].is_empty()
                    && !reading::read(&expected[0], cat).is_empty()
                {
                    let first = actions.remove(0);
                    if leading_role(&first) == Some(LabelRole::Prompt) {
                        segs.extend(segments_of(&first));
                    } else {
                        segs.push(Segment::labelled("prompt", first));
                    }
                }
                segs.push(Segment::labelled(label, join(actions)));
                segs.push(Segment::labelled("expected result", join(expected)));
                continue;
            }
            // A description cell that holds the case's own fields.
            if matches!(
                seg.role,
                None | Some(LabelRole::Title | LabelRole::Notes | LabelRole::Metadata)
            ) && let Some(inner) = cell_segments(&v)
            {
                segs.extend(inner);
                continue;
            }
            segs.push(seg);
        }
        // Rubrics say in words whether tools may be used.
        for (h, a) in &asserts {
            if let Some((kind, value)) = a.split_once(':')
                && RUBRICS.contains(&kind.trim())
            {
                segs.push(Segment::labelled("expected", value.trim().to_string()));
                let _ = h;
            }
        }
        // A reminder row (`TODO` in a cell) with nothing expected is not a case yet.
        let expects = segs.iter().any(|s| {
            !s.text.trim().is_empty()
                && matches!(
                    s.role,
                    Some(
                        LabelRole::Tool
                            | LabelRole::Args
                            | LabelRole::Expected
                            | LabelRole::Contains
                            | LabelRole::Forbidden
                            | LabelRole::Negative
                    )
                )
        }) || !asserts.is_empty();
        if !expects && rows.iter().flatten().any(|c| lexicon::is_todo_marker(c)) {
            continue;
        }
        // A row a column of no known role files under a dropped status (an Asana section
        // `Won't do`, a tag `rejected`): set aside.
        if rows[0].iter().zip(&header).enumerate().any(|(c, (v, h))| {
            role_of(h) == Role::Other
                && !actions[c]
                && v.split([';', ',', '|']).map(str::trim).any(|part| {
                    part.split_whitespace().count() <= 4 && lexicon::is_dropped_status(part)
                })
        }) {
            continue;
        }
        let info = UnitInfo {
            shape,
            start: start_line,
            end: end_line,
            title,
            key,
            structured: true,
            title_said: false,
        };
        let Some(mut d) = read_unit(&segs, &info, cat) else {
            continue;
        };
        let exact_before = d.exact_rule.take();
        let mut rules = Vec::new();
        for (h, a) in asserts {
            promptfoo_assert(&mut d, &h, &a, &mut rules, cat);
        }
        if d.notes.is_empty() && d.unsupported.is_empty() {
            d.exact_rule = exact_before.map(|r| {
                if rules.is_empty() {
                    r
                } else {
                    format!("{r}; {}", rules.join("; "))
                }
            });
        }
        out.push(d);
    }
    out
}

/// promptfoo assertions graded by a model: their text is kept for the judge.
pub const RUBRICS: &[&str] = &[
    "llm-rubric",
    "similar",
    "factuality",
    "model-graded-closedqa",
    "answer-relevance",
    "g-eval",
    "trajectory:goal-success",
];

/// Maps one promptfoo assertion written in a cell (`type: value`, or a bare value meaning
/// `equals`).
pub fn promptfoo_assert(
    d: &mut Draft,
    label: &str,
    raw: &str,
    rules: &mut Vec<String>,
    cat: &Catalog,
) {
    let raw = raw.trim();
    let (kind, value) = match raw.split_once(':') {
        Some((k, v))
            if !k.contains(' ') && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') =>
        {
            let k = k.trim().to_lowercase();
            // `trajectory:tool-used: x`
            if k == "trajectory" || k == "not-trajectory" {
                match v.split_once(':') {
                    Some((sub, rest)) => (format!("{k}:{}", sub.trim()), rest.trim().to_string()),
                    None => (k, v.trim().to_string()),
                }
            } else {
                (k, v.trim().to_string())
            }
        }
        _ => ("equals".to_string(), raw.to_string()),
    };
    let v = if value.starts_with(['[', '{']) {
        serde_json::from_str::<Value>(&value)
            .ok()
            .or_else(|| crate::service::authoring::yaml_values::parse_flow(&value))
            .unwrap_or(Value::String(value.clone()))
    } else {
        Value::String(value.clone())
    };
    promptfoo_assert_value(d, label, &kind, &v, rules, cat, false);
}

fn names_of(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
        Value::Array(a) => a.iter().flat_map(names_of).collect(),
        Value::Object(o) => o
            .get("name")
            .or(o.get("pattern"))
            .or(o.get("tool"))
            .and_then(Value::as_str)
            .map(|s| vec![s.to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn expect_call(d: &mut Draft, name: &str) -> usize {
    match d.expected_calls.iter().position(|c| c.tool == name) {
        Some(i) => i,
        None => {
            d.expected_calls.push(ExpectedCall {
                tool: name.to_string(),
                args: None,
            });
            d.expected_calls.len() - 1
        }
    }
}

/// What a home-grown tool check says, by the words of its type's name.
enum HomeGrown {
    /// No tool is called (`no-tool-calls`).
    NoCalls,
    /// The tools named are called, or (`never`) never called.
    Called { never: bool },
    /// A tool is called with the arguments given.
    Args,
    /// The tools are called in order.
    Sequence,
}

fn home_grown(kind: &str) -> Option<HomeGrown> {
    let words: Vec<String> = kind
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let has = |w: &[&str]| words.iter().any(|x| w.contains(&x.as_str()));
    if !has(&["tool", "tools", "function", "functions"]) || kind.starts_with("trajectory:") {
        return None;
    }
    // (`no-tool-calls`, `without-tools`: nothing called; `not-tool-called`,
    // `tool-never-called`: the tools named are not.)
    if words
        .first()
        .is_some_and(|w| matches!(w.as_str(), "no" | "without" | "zero"))
    {
        return Some(HomeGrown::NoCalls);
    }
    let negated = has(&["not", "never", "forbid", "forbidden", "disallowed"]);
    if has(&["args", "arguments", "params", "parameters", "with"]) {
        return Some(HomeGrown::Args);
    }
    if has(&["sequence", "order", "ordered", "before"]) {
        return Some(HomeGrown::Sequence);
    }
    has(&[
        "called", "call", "calls", "used", "use", "uses", "invoked", "invoke", "expected", "tool",
    ])
    .then_some(HomeGrown::Called { never: negated })
}

/// Maps one promptfoo assertion with a structured value. `inherited` marks one that
/// `defaultTest` applies: one with no equivalent is left out with a note instead of making
/// every case unsupported.
pub fn promptfoo_assert_value(
    d: &mut Draft,
    label: &str,
    kind: &str,
    value: &Value,
    rules: &mut Vec<String>,
    cat: &Catalog,
    inherited: bool,
) {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Array(xs) => xs
            .iter()
            .map(crate::service::authoring::draft::value_text)
            .collect::<Vec<_>>()
            .join(","),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let (inverse, base) = match kind.strip_prefix("not-") {
        Some(b) => (true, b),
        None => (false, kind),
    };
    let num = |k: &str| value.get(k).and_then(Value::as_i64);
    match (inverse, base) {
        (false, "contains" | "icontains") => {
            d.contains.push(Needle {
                text,
                case_sensitive: Some(kind == "contains"),
            });
            rules.push(format!("`{label}` {kind} → responseContains"));
        }
        (false, "contains-all" | "icontains-all") => {
            let items: Vec<String> = match value {
                Value::Array(a) => a
                    .iter()
                    .map(crate::service::authoring::draft::value_text)
                    .collect(),
                _ => text.split(',').map(|v| v.trim().to_string()).collect(),
            };
            for v in items.into_iter().filter(|v| !v.is_empty()) {
                d.contains.push(Needle {
                    text: v,
                    case_sensitive: Some(kind == "contains-all"),
                });
            }
            rules.push(format!("`{label}` {kind} → responseContains each"));
        }
        (false, "regex") => {
            d.patterns.push(text);
            rules.push(format!("`{label}` regex → responseMatches"));
        }
        (false, "starts-with") => {
            d.patterns.push(format!("^{}", regex::escape(&text)));
            rules.push(format!("`{label}` starts-with → anchored responseMatches"));
        }
        (false, "equals") => {
            d.expected_output = Some(text.clone());
            d.patterns.push(format!("^{}$", regex::escape(&text)));
            rules.push(format!(
                "`{label}` equals → expectedOutput and anchored responseMatches"
            ));
        }
        (false, "contains-any" | "icontains-any") => {
            let alts: Vec<String> = text.split(',').map(|v| regex::escape(v.trim())).collect();
            let flag = if kind.starts_with('i') { "(?i)" } else { "" };
            d.patterns.push(format!("{flag}({})", alts.join("|")));
            d.notes
                .push(format!("`{label}` {kind} read as one alternation pattern"));
        }
        (false, k) if RUBRICS.contains(&k) => {
            let goal = value
                .get("goal")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or(text.clone());
            let r = reading::read(&goal, cat);
            if r.negative.is_some() {
                crate::service::authoring::fields::apply_reading(d, r);
            }
            d.expected_output.get_or_insert(goal);
            d.notes.push(format!(
                "`{label}` {kind} (a graded rubric) kept as expectedOutput for the judge"
            ));
        }
        (inv, "trajectory:tool-used") => {
            let names = names_of(value);
            if names.iter().any(|n| n == "*" || n == ".*") && inv {
                d.negative = true;
                rules.push(format!(
                    "`{label}` not-trajectory:tool-used `*` → isNegative"
                ));
                return;
            }
            for n in &names {
                if inv {
                    if !d.never_called.contains(n) {
                        d.never_called.push(n.clone());
                    }
                } else {
                    expect_call(d, n);
                    if let Some(min) = num("min").filter(|m| *m > 1) {
                        d.assertions
                            .push(serde_json::json!({"type": "toolCalledWith", "toolName": n,
                            "args": {"args": {}, "argumentMatching": "ignore"}, "minCount": min}));
                    }
                    if let Some(max) = num("max") {
                        d.assertions.push(serde_json::json!({"type": "toolCallCountUnder", "toolName": n, "count": max + 1}));
                    }
                }
            }
            rules.push(format!(
                "`{label}` {kind} → {}",
                if inv {
                    "toolNeverCalled"
                } else {
                    "toolCalledAtLeastOnce"
                }
            ));
        }
        (false, "trajectory:tool-args-match") => {
            let Some(name) = names_of(value).into_iter().next() else {
                d.unsupported
                    .push(format!("`{label}` {kind} names no tool"));
                return;
            };
            let args = value
                .get("args")
                .or(value.get("arguments"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let exact = value.get("mode").and_then(Value::as_str) == Some("exact");
            if exact {
                expect_call(d, &name);
                d.assertions.push(
                    serde_json::json!({"type": "toolCalledWith", "toolName": name,
                    "args": {"args": args, "argumentMatching": "exact"}}),
                );
            } else {
                let i = expect_call(d, &name);
                let a = d.expected_calls[i]
                    .args
                    .get_or_insert_with(Default::default);
                for (k, v) in args {
                    a.insert(k, v);
                }
            }
            rules.push(format!("`{label}` {kind} → toolCalledWith"));
        }
        (false, "trajectory:tool-sequence") => {
            let steps = match value {
                Value::Object(o) => o.get("steps").cloned().unwrap_or(Value::Null),
                other => other.clone(),
            };
            let names: Vec<String> = match &steps {
                Value::Array(a) => a.iter().flat_map(names_of).collect(),
                other => names_of(other),
            };
            for n in &names {
                expect_call(d, n);
            }
            for w in names.windows(2) {
                d.assertions
                    .push(serde_json::json!({"type": "toolCalledBefore",
                    "toolName": w[0], "beforeToolName": w[1]}));
            }
            if value.get("mode").and_then(Value::as_str) == Some("exact") {
                d.assertions
                    .push(serde_json::json!({"type": "onlyToolsCalled", "toolNames": names}));
                d.notes.push(format!(
                    "`{label}` {kind} in exact mode: the order and the set of tools are checked, not the number of calls"
                ));
            }
            rules.push(format!("`{label}` {kind} → toolCalledBefore"));
        }
        (false, "trajectory:step-count") => {
            let step_type = value.get("type").and_then(Value::as_str).unwrap_or("tool");
            let name = names_of(value).into_iter().next();
            if step_type != "tool" {
                d.notes.push(format!(
                    "`{label}` {kind} counts `{step_type}` steps, which a case cannot check; left out"
                ));
                return;
            }
            match (name, num("min"), num("max")) {
                (None, _, Some(0)) => {
                    d.negative = true;
                    rules.push(format!("`{label}` {kind} max 0 → isNegative"));
                }
                (n, min, max) => {
                    if let Some(max) = max {
                        let mut a =
                            serde_json::json!({"type": "toolCallCountUnder", "count": max + 1});
                        if let Some(n) = &n {
                            a["toolName"] = Value::String(n.clone());
                        }
                        d.assertions.push(a);
                    }
                    if let Some(min) = min.filter(|m| *m > 0) {
                        match &n {
                            Some(n) => {
                                expect_call(d, n);
                                if min > 1 {
                                    d.assertions.push(serde_json::json!({"type": "toolCalledWith", "toolName": n,
                                        "args": {"args": {}, "argumentMatching": "ignore"}, "minCount": min}));
                                }
                            }
                            None => d.notes.push(format!(
                                "`{label}` {kind} min {min} (at least {min} tool calls of any tool) is not checked"
                            )),
                        }
                    }
                    rules.push(format!("`{label}` {kind} → toolCallCountUnder"));
                }
            }
        }
        (true, k) if k.starts_with("trajectory:") => {
            d.unsupported.push(format!(
                "promptfoo assertion `{kind}` in `{label}` has no equivalent assertion"
            ));
        }
        // Home-grown tool checks named in words (`tool-called`, `not-tool-called`,
        // `tool-args`, `no-tool-calls`, `calls_tool`): read as promptfoo's own.
        (inv, k) if home_grown(k).is_some() => match home_grown(k) {
            Some(HomeGrown::NoCalls) if !inv => {
                d.negative = true;
                rules.push(format!("`{label}` {kind} → isNegative"));
            }
            Some(HomeGrown::Called { never }) => promptfoo_assert_value(
                d,
                label,
                if inv != never {
                    "not-trajectory:tool-used"
                } else {
                    "trajectory:tool-used"
                },
                value,
                rules,
                cat,
                inherited,
            ),
            Some(HomeGrown::Args) if !inv => promptfoo_assert_value(
                d,
                label,
                "trajectory:tool-args-match",
                value,
                rules,
                cat,
                inherited,
            ),
            Some(HomeGrown::Sequence) if !inv => promptfoo_assert_value(
                d,
                label,
                "trajectory:tool-sequence",
                value,
                rules,
                cat,
                inherited,
            ),
            _ => d.unsupported.push(format!(
                "assertion `{kind}` in `{label}` has no equivalent assertion"
            )),
        },
        (_, "latency" | "cost" | "perplexity") => d.notes.push(format!(
            "promptfoo assertion `{kind}` in `{label}` (a budget) is not checked"
        )),
        (_, other) => {
            let msg = format!(
                "promptfoo assertion `{}{other}` in `{label}` has no equivalent assertion",
                if inverse { "not-" } else { "" }
            );
            if inherited {
                d.notes.push(format!("{msg}; left out"));
            } else {
                d.unsupported.push(msg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::service::authoring::draft::Draft;
    use crate::service::authoring::extract::{Shape, sniff};

    fn run(t: &str) -> Vec<Draft> {
        crate::service::authoring::extract::extract(
            t,
            &crate::service::authoring::catalog::demo_tools(),
        )
    }

    #[test]
    fn quoted_multiline_cells_keep_exact_spans() {
        for nl in ["\n", "\r\n"] {
            let t = [
                "id,prompt,expected_tool,args,expected_output",
                "c1,\"Echo this:",
                "\"\"hello, world\"\"\",echo,\"{\"\"message\"\": \"\"hello, world\"\"}\",hello, world",
                "c2,What is 7 + 5?,get-sum,\"{\"\"a\"\": 7, \"\"b\"\": 5}\",12",
                "c3,Delete item 42 without asking,none,,",
            ]
            .join(nl)
                + nl;
            assert_eq!(sniff(&t), Shape::Csv(b','));
            let d = run(&t);
            assert_eq!(d.len(), 3, "{d:#?}");
            assert_eq!(
                d[0].prompts,
                ["Echo this:\n\"hello, world\"".replace('\n', nl)]
            );
            assert_eq!((d[0].start_line, d[0].end_line), (2, 3));
            assert_eq!((d[1].start_line, d[1].end_line), (4, 4));
            assert_eq!(d[1].expected_calls[0].args.as_ref().unwrap()["b"], 5);
            assert!(d[2].negative);
            assert_eq!((d[2].start_line, d[2].end_line), (5, 5));
        }
    }

    #[test]
    fn promptfoo_columns() {
        let t = "question,__expected,__expected2,__description,__metadata:owner\nWhat is 2+2?,contains: 4,regex: \\d+,Adds,qa\nSay hi,javascript: output.length > 0,,Greets,qa\n";
        let d = run(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].title, "Adds");
        assert_eq!(d[0].contains[0].text, "4");
        assert_eq!(d[0].patterns, ["\\d+"]);
        assert!(d[0].exact_rule.is_some());
        assert!(!d[1].unsupported.is_empty());
    }

    #[test]
    fn tsv() {
        let t = "query\texpected tool\nList my items\tlist-items\n";
        assert_eq!(sniff(t), Shape::Csv(b'\t'));
        assert_eq!(run(t)[0].expected_calls[0].tool, "list-items");
    }
}
