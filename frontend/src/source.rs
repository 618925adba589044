//! Source files: decoding, and byte offsets turned into the lines and columns a user sees.

use lockstep_logic::Span;

/// A decoded input file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
    line_starts: Vec<usize>,
}

/// A position as a user counts: 1-based line, 1-based column in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        // A line ends at `\n`, at `\r\n`, or at a lone `\r` (old Mac files).
        let bytes = text.as_bytes();
        let line_starts = std::iter::once(0)
            .chain(bytes.iter().enumerate().filter_map(|(offset, &byte)| {
                let ends_line = byte == b'\n' || (byte == b'\r' && bytes.get(offset + 1) != Some(&b'\n'));
                ends_line.then_some(offset + 1)
            }))
            .collect();
        SourceFile { path: path.into(), text, line_starts }
    }

    /// Decodes raw bytes. A UTF-8 byte-order mark is dropped (positions count from after it).
    /// Invalid UTF-8 gives the byte offset of the first bad byte and the file with every bad
    /// sequence replaced by U+FFFD, so that the error can still be shown in context.
    pub fn decode(path: impl Into<String>, mut bytes: Vec<u8>) -> Result<SourceFile, (SourceFile, Span)> {
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path, text)),
            Err(error) => {
                let valid_up_to = error.utf8_error().valid_up_to();
                let bytes = error.into_bytes();
                let lossy = String::from_utf8_lossy(&bytes).into_owned();
                // In the lossy text the bad bytes became one U+FFFD (3 bytes) at the same offset.
                let span = Span::new(valid_up_to, valid_up_to + '\u{FFFD}'.len_utf8());
                Err((SourceFile::new(path, lossy), span))
            }
        }
    }

    /// The line and column of a byte offset (clamped to the text).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line_index = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let line_start = self.line_starts[line_index];
        let column = self.text.get(line_start..offset).map_or(offset - line_start, |prefix| prefix.chars().count());
        Position { line: line_index + 1, column: column + 1 }
    }

    /// The 0-based line and UTF-16 column of a byte offset (clamped to the text): a position as
    /// the Language Server Protocol and JavaScript editors count.
    pub fn utf16_position(&self, offset: usize) -> (u32, u32) {
        let offset = self.boundary(offset.min(self.text.len()));
        let line_index = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let column: usize = self.text[self.line_starts[line_index]..offset].chars().map(char::len_utf16).sum();
        (u32::try_from(line_index).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
    }

    /// The byte offset of a 0-based line and UTF-16 column, clamped to the text and to the line's
    /// end (before its line break).
    pub fn offset_of_utf16(&self, line: u32, column: u32) -> usize {
        let Some(&start) = self.line_starts.get(line as usize) else { return self.text.len() };
        let end = self.line_starts.get(line as usize + 1).copied().unwrap_or(self.text.len());
        let content = self.text[start..end].trim_end_matches(['\n', '\r']);
        let mut units = 0;
        for (offset, character) in content.char_indices() {
            if units >= column as usize {
                return start + offset;
            }
            units += character.len_utf16();
        }
        start + content.len()
    }

    /// The last character boundary at or before `offset`.
    fn boundary(&self, mut offset: usize) -> usize {
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        let file = SourceFile::new("f.pvl", "ab\nçd\n");
        assert_eq!(file.position(0), Position { line: 1, column: 1 });
        assert_eq!(file.position(3), Position { line: 2, column: 1 });
        assert_eq!(file.position(5), Position { line: 2, column: 2 });
        assert_eq!(file.position(7), Position { line: 3, column: 1 });
        assert_eq!(file.position(99), Position { line: 3, column: 1 });
    }

    #[test]
    fn utf16_positions_go_there_and_back() {
        let file = SourceFile::new("f.pvl", "ab\r\n𝔸ç=1\nz");
        assert_eq!(file.utf16_position(0), (0, 0));
        assert_eq!(file.utf16_position(4), (1, 0));
        // `𝔸` is four bytes and two UTF-16 units, `ç` two bytes and one unit.
        assert_eq!(file.utf16_position(8), (1, 2));
        assert_eq!(file.utf16_position(10), (1, 3));
        for offset in [0, 1, 4, 8, 10, 11, 13, 14] {
            let (line, column) = file.utf16_position(offset);
            assert_eq!(file.offset_of_utf16(line, column), offset, "offset {offset}");
        }
        // Past a line's end, the end of the line; past the text, its end.
        assert_eq!(file.offset_of_utf16(0, 40), 2);
        assert_eq!(file.offset_of_utf16(9, 0), file.text.len());
    }

    #[test]
    fn carriage_returns_end_lines_too() {
        let file = SourceFile::new("f.pvl", "a\r\nb\rc\n");
        assert_eq!(file.position(3), Position { line: 2, column: 1 });
        assert_eq!(file.position(5), Position { line: 3, column: 1 });
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let file = SourceFile::decode("f.pvl", b"\xEF\xBB\xBFkernel".to_vec()).unwrap();
        assert_eq!(file.text, "kernel");
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let (file, span) = SourceFile::decode("f.pvl", b"ok\nx\xffy".to_vec()).unwrap_err();
        assert_eq!(file.position(span.start), Position { line: 2, column: 2 });
        assert_eq!(file.text, "ok\nx\u{FFFD}y");
    }
}
