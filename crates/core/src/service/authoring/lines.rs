//! Byte offsets ↔ 1-based line numbers, and exact excerpts.
//!
//! A line ends at `\n`; a `\r` before it belongs to the terminator, so CRLF documents get
//! the same numbers as LF ones and excerpts keep the document's own bytes (their inner
//! `\r\n` included). A lone `\r` (classic Mac) is not a line break.

/// The lines of `t`, as [`str::lines`] cuts them, with their breaks found by `memchr`
/// (much quicker on a long document's short lines: the page passes each split one).
pub fn split_lines(t: &str) -> impl Iterator<Item = &str> {
    let mut rest = t;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let line = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                let line = &rest[..i];
                rest = &rest[i + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut rest),
        };
        Some(line)
    })
}

/// Whether `t` holds `pat`, by memchr's SIMD substring search: several times quicker
/// than std's over a long document, which every page pass first asks whether it has
/// anything to rewrite.
pub fn has(t: &str, pat: &str) -> bool {
    memchr::memmem::find(t.as_bytes(), pat.as_bytes()).is_some()
}

/// Start offsets of every line of a document.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        // (`match_indices` finds the breaks with memchr, not byte by byte.)
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&s| s < text.len()),
        );
        LineIndex { text, starts }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Number of lines (an empty document has one empty line).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// Line `n` (1-based) without its terminator.
    pub fn line(&self, n: usize) -> &'a str {
        let (s, e) = self.bounds(n, n);
        &self.text[s..e]
    }

    /// Byte range of lines `start..=end`, without the last line's terminator.
    pub fn bounds(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.starts[start.clamp(1, self.len()) - 1];
        let end = end.clamp(1, self.len());
        let mut e = if end < self.len() {
            self.starts[end]
        } else {
            self.text.len()
        };
        let bytes = self.text.as_bytes();
        if e > s && bytes[e - 1] == b'\n' {
            e -= 1;
            if e > s && bytes[e - 1] == b'\r' {
                e -= 1;
            }
        }
        (s, e.max(s))
    }

    /// Exactly lines `start..=end` of the document.
    pub fn excerpt(&self, start: usize, end: usize) -> &'a str {
        let (s, e) = self.bounds(start, end);
        &self.text[s..e]
    }

    /// The 1-based line span of byte range `start..end`, with trailing blank lines and the
    /// final terminator left out.
    pub fn span_of(&self, start: usize, end: usize) -> (usize, usize) {
        let slice = &self.text[start..end.max(start)];
        let trimmed = slice.trim_end_matches(['\r', '\n', ' ', '\t']);
        let last = start + trimmed.len().max(1) - 1;
        let first_line = self.line_of(start);
        (first_line, self.line_of(last.max(start)).max(first_line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_and_crlf_agree() {
        for nl in ["\n", "\r\n"] {
            let t = format!("a{nl}bb{nl}{nl}ccc{nl}");
            let ix = LineIndex::new(&t);
            assert_eq!(ix.len(), 4);
            assert_eq!(ix.line(1), "a");
            assert_eq!(ix.line(2), "bb");
            assert_eq!(ix.line(3), "");
            assert_eq!(ix.line(4), "ccc");
            assert_eq!(ix.excerpt(2, 4), format!("bb{nl}{nl}ccc"));
            let off = t.find("ccc").unwrap();
            assert_eq!(ix.line_of(off), 4);
            assert_eq!(ix.span_of(t.find("bb").unwrap(), t.len()), (2, 4));
        }
    }

    #[test]
    fn split_lines_cuts_as_str_lines_does() {
        for t in [
            "",
            "\n",
            "a",
            "a\n",
            "a\n\n",
            "\na",
            "a\r\nb",
            "a\r",
            "a\r\n",
            "a\rb\n\r\n",
            "é\nü\r\n\n",
        ] {
            assert_eq!(
                split_lines(t).collect::<Vec<_>>(),
                t.lines().collect::<Vec<_>>(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn no_trailing_newline() {
        let ix = LineIndex::new("x\ny");
        assert_eq!(ix.len(), 2);
        assert_eq!(ix.excerpt(1, 2), "x\ny");
        assert_eq!(ix.excerpt(2, 2), "y");
    }
}
