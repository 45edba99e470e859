//! Rich Text Format (a plan saved from WordPad or Word as `.rtf`): its text, line for line.
//! Control words go (`\b`, `\fs22`), `\par` and `\line` end a paragraph, `\tab` is a tab,
//! `\cell` parts a table's cells (`| … |`), escapes are letters again (`\u243?` is `ó`,
//! `\'e9` is `é`), struck text (`\strike` … `\strike0`) is struck in Markdown, and the
//! groups that hold no text (font and colour tables, `{\*\generator …}`) are skipped.

/// Whether the document is RTF.
pub fn looks_like_rtf(t: &str) -> bool {
    t.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("{\\rtf")
}

/// Destinations whose group holds no text of the document.
const SKIPPED: &[&str] = &[
    "fonttbl",
    "colortbl",
    "stylesheet",
    "info",
    "generator",
    "listtable",
    "listoverridetable",
    "rsidtbl",
    "themedata",
    "colorschememapping",
    "latentstyles",
    "datastore",
    "xmlnstbl",
    "pict",
    "header",
    "footer",
];

/// The document's text, one line for each of its lines.
pub fn to_markdown(t: &str) -> String {
    let mut out: Vec<String> = Vec::with_capacity(t.lines().count());
    // The depth of each open group, and the depth from which a skipped group started.
    let mut depth = 0usize;
    let mut skip_from: Option<usize> = None;
    let mut struck = false;
    let mut bold = false;
    let mut row: Option<Vec<String>> = None;
    for line in t.lines() {
        // (Struck text over several paragraphs is struck on each line.)
        let mut text = String::from(if struck { "~~" } else { "" });
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                b'{' => {
                    depth += 1;
                    i += 1;
                    // `{\*\dest …}`: an optional destination, skipped when unknown.
                    if line[i..].starts_with("\\*") && skip_from.is_none() {
                        skip_from = Some(depth);
                    }
                }
                b'}' => {
                    if skip_from == Some(depth) {
                        skip_from = None;
                    }
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                b'\\' => {
                    let rest = &line[i + 1..];
                    let Some(next) = rest.chars().next() else {
                        i += 1;
                        continue;
                    };
                    if matches!(next, '\\' | '{' | '}') {
                        if skip_from.is_none() {
                            text.push(next);
                        }
                        i += 2;
                        continue;
                    }
                    if next == '\'' {
                        // `\'e9`: a byte of the code page (Windows-1252 read as Latin-1).
                        let hex = rest.get(1..3).unwrap_or("");
                        if let Ok(v) = u8::from_str_radix(hex, 16)
                            && skip_from.is_none()
                        {
                            text.push(char::from(v));
                        }
                        i += 4;
                        continue;
                    }
                    let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
                    let after = &rest[word.len()..];
                    let num: String = after
                        .chars()
                        .take_while(|ch| ch.is_ascii_digit() || *ch == '-')
                        .collect();
                    let mut len = 1 + word.len() + num.len();
                    // One space after a control word is its delimiter.
                    if rest[word.len() + num.len()..].starts_with(' ') {
                        len += 1;
                    }
                    if SKIPPED.contains(&word.as_str()) && skip_from.is_none() {
                        skip_from = Some(depth);
                    }
                    if skip_from.is_none() {
                        match word.as_str() {
                            "u" => {
                                if let Some(ch) = num
                                    .parse::<i32>()
                                    .ok()
                                    .map(|n| if n < 0 { n + 65536 } else { n })
                                    .and_then(|n| char::from_u32(n as u32))
                                {
                                    text.push(ch);
                                }
                                // The fallback character after `\uN`.
                                if line[i + len..].starts_with('?') {
                                    len += 1;
                                }
                            }
                            "tab" => text.push('\t'),
                            "endash" => text.push('–'),
                            "emdash" => text.push('—'),
                            "lquote" => text.push('‘'),
                            "rquote" => text.push('’'),
                            "ldblquote" => text.push('“'),
                            "rdblquote" => text.push('”'),
                            "bullet" => text.push('•'),
                            // (A bold paragraph is a case's title: `**Próf 1**`.)
                            "b" => {
                                let on = num != "0";
                                if on != bold {
                                    text.push_str("**");
                                    bold = on;
                                }
                            }
                            "strike" => {
                                let on = num != "0";
                                if on != struck {
                                    text.push_str("~~");
                                    struck = on;
                                }
                            }
                            "plain" | "pard" if struck => {
                                text.push_str("~~");
                                struck = false;
                            }
                            "trowd" => row = Some(Vec::new()),
                            "cell" => {
                                if let Some(r) = row.as_mut() {
                                    r.push(std::mem::take(&mut text).trim().to_string());
                                }
                            }
                            "row" => {
                                if let Some(r) = row.take() {
                                    text = format!("| {} |", r.join(" | "));
                                }
                            }
                            _ => {}
                        }
                    }
                    i += len;
                }
                _ => {
                    let ch = line[i..].chars().next().unwrap_or(' ');
                    if skip_from.is_none() {
                        text.push(ch);
                    }
                    i += ch.len_utf8();
                }
            }
        }
        if struck {
            text.push_str("~~");
        }
        if bold && !text.is_empty() {
            text.push_str("**");
            bold = false;
        }
        // (Markup around nothing, `** **`, is none.)
        let mut text = text.replace("****", "").replace("~~~~", "");
        // (A paragraph that opens in bold, `**Próf 6** (two steps)`, is a title; struck
        // too, `~~**Próf 7**~~`, a struck one.)
        if let Some(rest) = text.strip_prefix("~~**") {
            text = format!("**~~{rest}");
        }
        if let Some(rest) = text.strip_prefix("**")
            && let Some(close) = rest.find("**")
            && !rest[close + 2..].trim().is_empty()
        {
            text = format!("**{}{}**", &rest[..close], &rest[close + 2..].trim_end());
        }
        out.push(if row.is_some() {
            String::new()
        } else {
            text.trim_end().to_string()
        });
    }
    super::rejoin(t, &out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_tables_and_strikes_line_for_line() {
        let t = "{\\rtf1\\ansi{\\fonttbl{\\f0 Calibri;}}\n{\\*\\generator Riched20;}\\pard\\b Pr\\u243?f 1\\b0\\par\nNotandi:\\tab \\u8222?Hva\\'f0 er 2+2?\\u8220?\\par\n\\strike Pr\\u243?f 2\\strike0\\par\n\\trowd\\cellx1000\\cellx2000 a\\cell b\\cell\\row\n}\n";
        let md = to_markdown(t);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[0], "");
        assert_eq!(l[1], "**Próf 1**");
        assert_eq!(l[2], "Notandi:\t„Hvað er 2+2?“");
        assert_eq!(l[3], "~~Próf 2~~");
        assert_eq!(l[4], "| a | b |");
        assert!(looks_like_rtf(t));
    }
}
