//! Lexical facts about a line of source that more than one part of the
//! syntax layer needs without parsing: where a `//` comment starts. The
//! parser uses it to trim layout, and the foreign-spelling hints
//! ([`foreign`](super::foreign)) to see a line without its comment.

/// Where a `//` comment starts in one line, skipping strings.
pub(super) fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}
