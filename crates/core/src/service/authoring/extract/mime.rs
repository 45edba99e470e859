//! A saved e-mail's quoted-printable body (`Content-Transfer-Encoding: quoted-printable`,
//! as Thunderbird and Outlook save a message with accents) decoded line for line: `=C3=A1`
//! is `á` again and `=3D` is `=`. A soft line break (`=` at a line's end) splits a word
//! across two lines; the part of the word on the next line moves up to join it, so every
//! line keeps its number and a case's span is the same in the file and in what is read.

use std::borrow::Cow;

use crate::service::authoring::lines::has;

/// The text with every quoted-printable part decoded, or the text itself when it has none.
pub fn decoded(t: &str) -> Cow<'_, str> {
    if !has(t, "=\n") && !has(t, "=\r\n") && !has(t, "=3D") && !has(t, "=C3") {
        return Cow::Borrowed(t);
    }
    let lines: Vec<&str> = t.lines().collect();
    let parts = encoded_parts(&lines);
    if parts.is_empty() {
        return Cow::Borrowed(t);
    }
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for (a, b) in parts {
        // Soft breaks first, on the raw lines: a word's rest joins it on the line above
        // (an escape split by the break, `=C3=` over `=A1…`, is whole again too).
        for k in a..b.saturating_sub(1) {
            let Some(head) = out[k].strip_suffix('=').map(str::to_string) else {
                continue;
            };
            // (A break after a space falls between words: the lines stay as they are.)
            if head.ends_with(' ') {
                out[k] = head;
                continue;
            }
            let next = out[k + 1].clone();
            let cut = next.find(' ').unwrap_or(next.len());
            out[k] = format!("{head}{}", &next[..cut]);
            out[k + 1] = next[cut..].trim_start().to_string();
        }
        for line in &mut out[a..b] {
            *line = unescaped(line.strip_suffix('=').unwrap_or(line));
        }
    }
    let mut doc = out.join("\n");
    if t.ends_with('\n') {
        doc.push('\n');
    }
    Cow::Owned(doc)
}

/// The line ranges `a..b` of the parts whose header says quoted-printable: from the blank
/// line that ends the header to the next MIME boundary (`--…`) or the end.
fn encoded_parts(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let l = lines[k].trim().to_ascii_lowercase();
        if !(l.starts_with("content-transfer-encoding:") && l.ends_with("quoted-printable")) {
            k += 1;
            continue;
        }
        let Some(blank) = (k..lines.len()).find(|&j| lines[j].trim().is_empty()) else {
            break;
        };
        let end = (blank + 1..lines.len())
            .find(|&j| {
                let t = lines[j].trim_end();
                t.starts_with("--") && t.len() > 10 && !t.contains(' ')
            })
            .unwrap_or(lines.len());
        out.push((blank + 1, end));
        k = end;
    }
    out
}

/// A line's `=XX` escapes as the bytes they stand for, read as UTF-8.
fn unescaped(line: &str) -> String {
    let b = line.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'='
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            bytes.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        bytes.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quoted_printable_body_is_decoded_line_for_line() {
        let mail = "Subject: test\nContent-Transfer-Encoding: quoted-printable\n\nK=C3=A9rd=C3=A9s: \"Sz=\n=C3=A1mold ki\", a=3D1 =\nb=3D2\nv=C3=A9ge\n";
        let d = super::decoded(mail);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines.len(), mail.lines().count());
        assert_eq!(lines[3], "Kérdés: \"Számold");
        assert_eq!(lines[4], "ki\", a=1 ");
        assert_eq!(lines[5], "b=2");
        assert_eq!(lines[6], "vége");
        // Without the header, nothing changes.
        let plain = "a =3D b\n";
        assert_eq!(super::decoded(plain), plain);
    }
}
