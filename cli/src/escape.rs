//! Text from a store shown on a terminal. Names, keys and paths come from
//! whoever asked for them; escaped, a key cannot forge a line of output or
//! send escape codes to the terminal.

use std::fmt::Write;

/// `text` with what could move the cursor, recolour the terminal or reorder
/// the line escaped: `\n`, `\r`, `\t`; `\xHH` for the other C0 controls and
/// DEL (so ESC is `\x1b`); `\u{HH}` for the C1 controls and the
/// bidirectional-text controls; a backslash doubled, so that the escaped
/// form reads one way only. Everything else is kept as it is.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '\0'..='\x1f' | '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() || is_bidi_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The characters that reorder how a line shows (marks, embeddings,
/// overrides, isolates).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn keeps_plain_text_and_other_scripts() {
        for text in ["summaries", "chat 42", "a.b_c-d:e", "ключ", "キー", "😀"] {
            assert_eq!(escape(text), text);
        }
    }

    #[test]
    fn escapes_line_breaks_and_terminal_codes() {
        assert_eq!(
            escape("k\nheld    9\x1b[31mred\x1b[0m"),
            "k\\nheld    9\\x1b[31mred\\x1b[0m"
        );
        assert_eq!(escape("a\r\tb\0\x07\x7f"), "a\\r\\tb\\x00\\x07\\x7f");
        assert_eq!(escape("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[test]
    fn a_backslash_is_doubled_so_escapes_cannot_be_faked() {
        assert_eq!(escape("a\\nb"), "a\\\\nb");
        assert_ne!(escape("a\\nb"), escape("a\nb"));
    }

    #[test]
    fn nothing_escaped_is_a_control_character() {
        let every: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let shown = escape(&every);
        assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
    }
}
