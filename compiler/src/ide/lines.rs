//! Byte offsets ↔ editor positions. The compiler counts bytes; LSP counts
//! lines and UTF-16 code units within a line, so "é" is one unit and "😀"
//! two. Offsets and positions past the end are clamped, never a panic.

use serde::Serialize;
use std::borrow::Cow;

/// A zero-based line and UTF-16 column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// A half-open range of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

/// The start of every line of one text.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Cow<'t, [usize]>,
}

/// The byte offset where each line of `text` starts (the first is 0).
pub fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> LineIndex<'t> {
        LineIndex {
            text,
            starts: Cow::Owned(line_starts(text)),
        }
    }

    /// An index over `text` whose [`line_starts`] were computed before.
    pub fn with_starts(text: &'t str, starts: &'t [usize]) -> LineIndex<'t> {
        LineIndex {
            text,
            starts: Cow::Borrowed(starts),
        }
    }

    /// The position of byte `offset` (clamped to the text; an offset inside
    /// a multi-byte character counts from the character's start).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = self.text[start..]
            .char_indices()
            .take_while(|(i, _)| start + i < offset)
            .map(|(_, c)| c.len_utf16() as u32)
            .sum();
        Position {
            line: line as u32,
            character,
        }
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range {
            start: self.position(start),
            end: self.position(end.max(start)),
        }
    }

    /// The byte offset of `p` (a line past the end is the end of the text; a
    /// column past the line's end is the line's end).
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let line_end = self
            .starts
            .get(p.line as usize + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let mut units = 0u32;
        for (i, c) in self.text[start..line_end].char_indices() {
            if units >= p.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        line_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units() {
        let text = "ab\né😀x\n";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap_or(0);
        assert_eq!(
            lines.position(x),
            Position {
                line: 1,
                character: 3
            }
        );
        assert_eq!(
            lines.offset(Position {
                line: 1,
                character: 3
            }),
            x
        );
        assert_eq!(
            lines.offset(Position {
                line: 0,
                character: 99
            }),
            2
        );
        assert_eq!(
            lines.offset(Position {
                line: 9,
                character: 0
            }),
            text.len()
        );
        assert_eq!(
            lines.position(999),
            Position {
                line: 2,
                character: 0
            }
        );
    }
}
